"""The chats of an HTML export: a chat's folder, an account's ``chats/chat_NNN/`` folders,
or an archive's members, each chat's ``messages*.html`` pages in order.

- **A page that is a symbolic link out of the export folder** (to ``/etc/…`` or another
  user's files) is never read: it is kept apart (``HtmlChat.refused``) and named in the
  report as a warning; a link that stays inside the folder is read. A chat folder of an
  account export that is a link is not followed, and named.
- **An account export's ``lists/chats.html``** (each chat's type) is streamed
  (``iterparse``, each entry freed once read) and read up to ``MAX_LISTING_BYTES``:
  however big the member inflates, memory stays flat; a chat past the bound has its
  type read from its messages, as when there is no listing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from lxml import etree

from toolkit.errors import InvalidRequest
from toolkit.ingest.export.html.page import page_number

Opener = Callable[[], IO[bytes]]
MAX_LISTING_BYTES = 64 * 1024 * 1024
"""Bytes of ``lists/chats.html`` read (the exporter writes about 300 bytes a chat)."""
_ACCOUNT_TYPES = {
    "private": "personal_chat",
    "bot": "bot_chat",
    "group": "private_supergroup",
    "channel": "private_channel",
}
_CHAT_DIR = re.compile(r"(?:^|/)chats/(chat_\d+)/$")
_CHAT_HREF = re.compile(r"chats/(chat_\d+)/")


@dataclass(frozen=True)
class Page:
    """One ``messages*.html`` page: its name, size in bytes, and how to open it."""

    name: str
    size: int
    open: Opener


@dataclass
class HtmlChat:
    """One exported chat: its pages in order, and its type when the export lists it."""

    folder: str
    pages: list[Page]
    chat_type: str | None = None
    in_account: bool = False
    refused: list[str] = field(default_factory=list)
    """Names of its pages not read: links out of the export folder (warnings)."""
    not_followed: str | None = None
    """Why the chat's folder was not read (a symbolic link): a warning."""


def ordered(pages: list[Page]) -> list[Page]:
    """``pages`` in the exporter's order (``messages.html``, ``messages2.html`` …)."""
    return sorted(pages, key=lambda p: page_number(PurePosixPath(p.name).name) or 0)


def _file_page(path: Path) -> Page:
    return Page(path.name, path.stat().st_size, lambda: path.open("rb"))


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path``, its symbolic links followed, is under ``root`` (resolved)."""
    try:
        return path.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):  # vanished, or a loop of links
        return False


def _folder_chat(folder: Path, root: Path, *, in_account: bool = False) -> HtmlChat | None:
    pages, refused = [], []
    for p in sorted(folder.iterdir()):
        if page_number(p.name) is None:
            continue
        if not _inside(p, root):
            refused.append(p.name)
        elif p.is_file():
            pages.append(_file_page(p))
    if not pages and not refused:
        return None
    return HtmlChat(folder.name, ordered(pages), in_account=in_account, refused=refused)


class _Bounded:
    """A stream that ends after ``limit`` bytes (what lies past it is never read)."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self._raw, self._left = raw, limit

    def read(self, size: int = -1, /) -> bytes:
        want = self._left if size < 0 else min(size, self._left)
        chunk = self._raw.read(want) if want > 0 else b""
        self._left -= len(chunk)
        return chunk


def account_types(listing: Opener | None, wanted: set[str]) -> dict[str, str]:
    """``chat_NNN`` → chat type from an account export's ``lists/chats.html``, streamed
    (at most ``MAX_LISTING_BYTES`` of it), for the chat folders ``wanted`` (those the
    export holds: a listing of a million chats keeps no million entries)."""
    if listing is None or not wanted:
        return {}
    out: dict[str, str] = {}
    with listing() as raw:
        events = etree.iterparse(
            _Bounded(raw, MAX_LISTING_BYTES),
            events=("end",),
            tag="a",
            html=True,
            encoding="utf-8",
            collect_ids=False,
            huge_tree=True,
            recover=True,
        )
        try:
            for _, entry in events:
                match = _CHAT_HREF.search(entry.get("href") or "")
                info = entry.find(".//div[@class='pull_right info details']")
                if match and match.group(1) in wanted and info is not None:
                    kind = _ACCOUNT_TYPES.get("".join(info.itertext()).strip())
                    if kind is not None:
                        out[match.group(1)] = kind
                entry.clear(keep_tail=False)
                parent = entry.getparent()
                while parent is not None and entry.getprevious() is not None:
                    del parent[0]
        except etree.XMLSyntaxError:
            pass  # a listing cut short: the chats it did not list are typed by their messages
    return out


def folder_chats(path: Path) -> list[HtmlChat]:
    """The chats of an HTML export at ``path``: a page, a chat's folder, or an account's.

    Raises:
        InvalidRequest: ``path`` holds no HTML export.
    """
    root = (path.parent if path.is_file() else path).resolve()
    if path.is_file():
        chat = _folder_chat(path.parent, root)
        assert chat is not None
        return [chat]
    single = _folder_chat(path, root)
    if single is not None:
        return [single]
    chats_dir = path / "chats"
    listing = path / "lists" / "chats.html"
    found = listing.is_file() and _inside(listing, root)
    folders = sorted(chats_dir.iterdir()) if chats_dir.is_dir() else []
    wanted = {f.name for f in folders}
    types = account_types((lambda: listing.open("rb")) if found else None, wanted)
    chats = []
    if folders:
        for folder in folders:
            if folder.is_symlink():
                where = "inside" if _inside(folder, root) else "out of"
                line = f"chats/{folder.name} is a symbolic link ({where} the export folder)"
                chats.append(HtmlChat(folder.name, [], in_account=True, not_followed=line))
            elif folder.is_dir():
                chat = _folder_chat(folder, root, in_account=True)
                if chat is not None:
                    chat.chat_type = types.get(folder.name)
                    chats.append(chat)
    if not chats:
        raise InvalidRequest(
            f"cannot import {path}: it holds no messages.html (an HTML export) and no "
            "result.json (a JSON export)",
            field="path",
        )
    return chats


def archive_chats(
    names: Mapping[str, tuple[int, Opener]], listing: Opener | None
) -> list[HtmlChat]:
    """The chats of an HTML export inside an archive (member name → size, opener)."""
    folders: dict[str, list[Page]] = {}
    for name, (size, opener) in names.items():
        pure = PurePosixPath(name)
        if page_number(pure.name) is not None:
            folder = f"{pure.parent}/" if str(pure.parent) != "." else ""
            folders.setdefault(folder, []).append(Page(name, size, opener))
    wanted = {m.group(1) for folder in folders if (m := _CHAT_DIR.search(folder))}
    types = account_types(listing, wanted)
    chats = []
    for folder in sorted(folders):
        match = _CHAT_DIR.search(folder)
        chat = HtmlChat(folder.rstrip("/") or ".", ordered(folders[folder]))
        if match:
            chat.in_account, chat.chat_type = True, types.get(match.group(1))
        chats.append(chat)
    return chats
