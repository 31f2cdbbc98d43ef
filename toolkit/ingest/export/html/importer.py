"""Import a Telegram Desktop HTML export (a folder, one of its pages, or a ``.zip``).

Finds the export's chats (one chat's ``messages*.html`` pages, or each
``chats/chat_NNN/`` of a full-account export), streams every page in order through
``export_html.read_page`` and feeds the JSON-shaped messages to the JSON path's
``Importer``: the same conversion, batches, staging (all lands or nothing), re-import
rules (idempotent upserts, duplicate ids skipped) and ``ImportReport``, with a progress
bar over the pages' bytes.

What an HTML export does not carry is said in the report, never guessed silently: the
chat's numeric id (``--ref c/<id>`` or ``@handle`` names it, else an id derived from the
title is used), its type (read from ``lists/chats.html`` in an account export, else from
the messages: a channel signs every post with its own name), sender ids, edit times,
and the time of service messages (each gets the time of a message next to it).
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path, PurePosixPath
from typing import Any

from lxml import etree
from tqdm import tqdm

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest.export.errors import ByteCounter, import_bar
from toolkit.ingest.export.html.chats import HtmlChat
from toolkit.ingest.export.html.identity import (
    HtmlTarget,
    chat_identity,
    check_targets,
)
from toolkit.ingest.export.html.page import PageState, page_number, read_page
from toolkit.ingest.export.importer import Importer
from toolkit.ingest.export.json.stream import ChatClosed, ChatHeader, ChatOpened
from toolkit.ingest.export.report import SKIP_SEPARATOR, SKIP_UNREAD, ImportReport
from toolkit.store.base import ImportSink


@dataclass
class _ChatRun:
    header: ChatHeader
    folder: str = ""
    state: PageState = field(default_factory=PageState)
    derived_id: bool = False
    seen: int = 0
    """Message blocks in the chat's pages' bytes."""
    unread: int = 0
    lost: list[str] = field(default_factory=list)
    """What of the chat's pages could not be read, page by page, for the report."""
    decoded: dict[str, list[str]] = field(default_factory=dict)
    """Pages not in UTF-8, by how they were decoded (``windows-1251 (by its …)``)."""
    undecodable: list[str] = field(default_factory=list)
    """Pages with bytes their charset cannot decode, named (warnings)."""

    def count(self, page: str) -> None:
        """Take the tally of the page just read (``page``: its name)."""
        tally = self.state.tally
        self.seen += tally.seen
        self.unread += tally.unread_count
        self.lost.extend(f"{page}: {u.describe()} could not be read" for u in tally.unread)
        self.lost.extend(f"{page}: the parser stopped at {p}" for p in tally.problems)
        decoding = self.state.decoding
        if decoding.label is not None:
            self.decoded.setdefault(decoding.label, []).append(page)
        if (bad := decoding.describe()) is not None:
            self.undecodable.append(f"{page}: {bad}")


CHANNEL_AUTHORS = 2
"""Names other than the title a channel's export may show as senders (a signed post, a
comment forwarded in); a chat with more members writing is a group."""


def _infer_type(run: _ChatRun, chat: HtmlChat, handle: str | None) -> tuple[str, str | None]:
    """The chat's type, and the report's line on how it was told (``None``: listed)."""
    if chat.chat_type is not None:
        return chat.chat_type, None
    state, title = run.state, run.state.title or ""
    public = "public" if handle else "private"
    others = state.senders - {title}
    # A title changed "by the chat itself" is an anonymous admin's in a group too: with
    # members writing under their own names, it is a group, whatever its service lines.
    signed = state.channel_signs and len(others) <= CHANNEL_AUTHORS
    if signed or (state.senders and not others):
        return f"{public}_channel", "read as a channel (its posts are signed with its name)"
    if handle is None and len(state.senders) == 2 and title in state.senders:
        return "personal_chat", "read as a personal chat (two people, one of them its title)"
    return f"{public}_supergroup", "read as a group"


def _notes(run: _ChatRun, key: str, how: str | None) -> list[str]:
    state = run.state
    out = []
    if run.derived_id:
        out.append(
            f"the HTML export of {state.title!r} names no chat id: stored as {key}; "
            "give --ref c/<id> (or @handle) to store it as the messenger's chat"
        )
    if how is not None:
        out.append(f"{key}: {how}")
    for label, pages in run.decoded.items():
        names = ", ".join(pages[:5]) + (f" and {len(pages) - 5} more" if len(pages) > 5 else "")
        out.append(f"{key}: {names} not in UTF-8: decoded as {label}")
    if state.service_times:
        out.append(
            f"{state.service_times} service message(s) of {key} carry no time in an HTML "
            "export: each got the time of the message next to it"
        )
    return out


def _read_chat(
    importer: Importer,
    chat: HtmlChat,
    target: HtmlTarget,
    bar: tqdm,
    notes: list[str],
) -> None:
    named = target.per_chat.get(PurePosixPath(chat.folder).name)
    if named is not None:  # an account export's chat named by its own ref: as a single chat
        target = named
    importer.use_handle(target.handle)
    in_account = chat.in_account and named is None
    run = _ChatRun(ChatHeader("chats.list.item" if in_account else ""), folder=chat.folder)
    index = 0
    opened = False
    header = run.header
    for page in chat.pages:
        last: dict[str, Any] | None = None
        try:
            with page.open() as raw:
                for data in read_page(ByteCounter(raw, bar), run.state, page.size):  # type: ignore[arg-type]
                    if not opened:
                        _open(importer, run, target, data)
                        opened = True
                    importer.message(header, index, data)
                    index += 1
                    last = data
        except (ValueError, etree.LxmlError, zipfile.BadZipFile) as exc:
            last_id = None if last is None else last.get("id")
            after = (
                f"after message id {last_id}" if last_id is not None else "before its first message"
            )
            raise ImportFormatError(f"{page.name}: {after}: {exc}", file=page.name) from None
        if run.state.title is None:
            raise ImportFormatError(
                f"{page.name} is not a page of a Telegram Desktop HTML export (no chat "
                "header); export with Export chat history, format HTML or JSON",
                file=page.name,
            )
        run.count(page.name)
    if not opened:  # a chat whose pages hold no message
        _open(importer, run, target, None)
    importer.blocks(
        run.seen,
        {SKIP_SEPARATOR: run.state.separators, SKIP_UNREAD: run.unread},
        run.lost,
        (*_missing_pages(chat), *_refused(chat), *run.undecodable),
    )
    chat_type, how = _infer_type(run, chat, target.handle)
    run.header.type = chat_type
    importer.take(ChatClosed(run.header))
    key = f"@{target.handle}" if target.handle else f"c/{run.header.id}"
    notes.extend(_notes(run, key, how))


def _missing_pages(chat: HtmlChat) -> tuple[str, ...]:
    """The line naming the pages missing from the chat's set (``messages2.html`` between
    ``messages.html`` and ``messages3.html``), if any."""
    numbers = {page_number(PurePosixPath(p.name).name) or 0 for p in chat.pages}
    numbers |= {page_number(name) or 0 for name in chat.refused}  # named as refused
    gaps = sorted(set(range(1, max(numbers, default=0) + 1)) - numbers)
    if not gaps:
        return ()
    names = ", ".join("messages.html" if n == 1 else f"messages{n}.html" for n in gaps[:10])
    more = f" and {len(gaps) - 10} more" if len(gaps) > 10 else ""
    return (
        f"{len(gaps)} page(s) missing from the set of {chat.folder}: {names}{more} "
        "(their messages are not in the export)",
    )


def _refused(chat: HtmlChat) -> tuple[str, ...]:
    """The lines naming the chat's pages that are links out of the export folder."""
    return tuple(
        f"{name} is a symbolic link out of the export folder: not read "
        "(its messages are not imported)"
        for name in chat.refused
    )


def _open(
    importer: Importer, run: _ChatRun, target: HtmlTarget, first: dict[str, Any] | None
) -> None:
    title = run.state.title or ""
    run.header.name = title
    if target.chat_id is not None and not run.header.in_account_export:
        run.header.id = target.chat_id
        target.taken.add(target.chat_id)
    else:
        run.header.id = chat_identity(
            target.store, title, first, folder=run.folder, taken=target.taken
        )
        run.derived_id = True
    importer.take(ChatOpened(run.header))


def _html_notes(notes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n.replace("no date_unixtime", "no UTC offset in their time") for n in notes)


def import_html_chats(
    sink: ImportSink,
    chats: list[HtmlChat],
    *,
    path: Path,
    target: HtmlTarget,
    progress: bool,
    batch_size: int,
    tz: tzinfo | None,
) -> Callable[[], ImportReport]:
    """Read ``chats`` into ``sink`` (a store's import staging); the report, once landed.

    Raises:
        ImportFormatError: a page that is no export page, or a malformed message block.
        InvalidRequest: ``target`` names one chat but the export holds several, or
            names a chat folder the export does not have; no page can be read (each is
            a link out of the export folder).
    """
    skipped = [
        line
        for c in chats
        if not c.pages
        for line in (
            [c.not_followed] if c.not_followed else [f"{c.folder}/{x}" for x in _refused(c)]
        )
    ]
    chats = [c for c in chats if c.pages]
    if not chats:
        raise InvalidRequest(
            f"cannot import {path.name}: no page of it can be read: {'; '.join(skipped)}",
            field="path",
        )
    check_targets(
        target,
        [PurePosixPath(c.folder).name for c in chats],
        account=any(c.in_account for c in chats),
    )
    notes: list[str] = []
    total = sum(p.size for c in chats for p in c.pages)
    pages = sum(len(c.pages) for c in chats)
    with import_bar(path, total, progress=progress) as bar:
        importer = Importer(
            sink, file_name=path.name, handle=target.handle, batch_size=batch_size, tz=tz
        )
        for chat in chats:
            _read_chat(importer, chat, target, bar, notes)
        importer.finish()
    plural = "page" if pages == 1 else "pages"

    def report() -> ImportReport:
        done = importer.report(path)
        extra = (f"HTML export, {pages} {plural}", *notes, *_html_notes(done.notes))
        return dataclasses.replace(done, notes=extra, lost=tuple(skipped))

    return report
