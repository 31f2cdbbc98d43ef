"""Who an HTML-exported chat is in the store when its export names no chat id.

An HTML export carries no chat id. A chat's title alone is no identity: two chats
titled "Family", or two ``chat_NNN`` folders named "Alex" in one account export, would
become one source and the second would overwrite the first's messages. So a chat with
no ``--ref`` is stored under an id derived from its title *and its content* (its first
message's id, time and sender; a chat with no message, its folder): the same export, or
a newer export of the same chat, maps to the same source; another chat never does. A
chat imported by an older version under its title-only id (``synthetic_chat_id``) keeps
that source when the store holds its first message as it is, so nothing is duplicated.
Within one import, two chats never share an id.

``--ref`` names the chat as the messenger knows it (``c/<id>`` or ``@handle``); for a
full-account export, each chat by its folder: ``chat_003=c/12345,chat_007=@handle``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolkit.errors import InvalidRequest, SourceNotFound
from toolkit.ingest.export.html.page import SYNTHETIC_BASE, synthetic_chat_id
from toolkit.refs import parse_ref
from toolkit.store.base import MessageStore


def _digest_id(*parts: str) -> int:
    digest = hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=8).digest()
    return SYNTHETIC_BASE + int.from_bytes(digest, "big") % 10**12


def _moment(first: Mapping[str, Any]) -> str:
    when = first.get("date_unixtime", first.get("date"))
    return when.isoformat() if isinstance(when, datetime) else str(when)


def content_chat_id(title: str, first: Mapping[str, Any] | None, folder: str) -> int:
    """The id of a chat titled ``title`` whose first message is ``first`` (``None``: it
    has none; then its export ``folder`` names it)."""
    if first is None:
        return _digest_id(title.strip(), "", folder)
    return _digest_id(title.strip(), str(first.get("id")), _moment(first), str(first.get("from")))


def _same_first(store: MessageStore, chat_id: int, first: Mapping[str, Any] | None) -> bool:
    """Whether the store's chat ``chat_id`` holds ``first`` as it is (same sender, and the
    same time when the export gives one)."""
    if first is None or not isinstance(first.get("id"), int):
        return False
    try:
        source = store.get_source(parse_ref(f"c/{chat_id}"))
    except SourceNotFound:
        return False
    stored = store.get_messages(source.id, [first["id"]])
    if not stored:
        return False
    moment = first.get("date_unixtime")
    same_time = not isinstance(moment, datetime) or stored[0].posted_at == moment
    return same_time and stored[0].sender_name == first.get("from")


def chat_identity(
    store: MessageStore | None,
    title: str,
    first: Mapping[str, Any] | None,
    *,
    folder: str,
    taken: set[int],
) -> int:
    """The id an HTML-exported chat is stored under, never one in ``taken`` (the ids of
    this import's other chats); the id is added to ``taken``."""
    legacy = synthetic_chat_id(title)
    if legacy not in taken and store is not None and _same_first(store, legacy, first):
        chosen = legacy
    else:
        chosen = content_chat_id(title, first, folder)
        if chosen in taken:  # two folders of one export are two chats, however alike
            chosen = _digest_id(str(chosen), folder)
    taken.add(chosen)
    return chosen


@dataclass
class HtmlTarget:
    """Who the chat is in the store: the id and handle a ``--ref`` gave, if any; for an
    account export, the refs of its chats by folder (``chat_003``)."""

    handle: str | None = None
    chat_id: int | None = None
    per_chat: dict[str, HtmlTarget] = field(default_factory=dict)
    store: MessageStore | None = None
    """The store imported into: a chat imported before under its title-only id is found."""
    taken: set[int] = field(default_factory=set)
    """The chat ids this import's chats took so far (shared by the per-chat targets)."""


def _one_target(store: MessageStore, ref: str) -> HtmlTarget:
    parsed = parse_ref(ref)
    if parsed.message_id is not None:
        raise InvalidRequest(
            f"a ref (--ref) names a chat (@handle or c/<id>), not one message: {ref!r}",
            field="ref",
        )
    if parsed.handle is None:
        return HtmlTarget(chat_id=parsed.internal_id)
    try:
        known = store.get_source(parsed)
    except SourceNotFound:
        return HtmlTarget(handle=parsed.handle)
    return HtmlTarget(handle=parsed.handle, chat_id=known.internal_id)


def html_target(store: MessageStore, ref: str | None) -> HtmlTarget:
    """The chat id and handle ``ref`` names (``@handle`` or ``c/<id>``), or for an account
    export each chat's (``chat_003=c/12345,chat_007=@handle``).

    Raises:
        InvalidRequest: ``ref`` names one message, or nothing; a folder named twice.
    """
    if ref is None:
        return HtmlTarget(store=store)
    if "=" not in ref:
        target = _one_target(store, ref)
        target.store = store
        return target
    out = HtmlTarget(store=store)
    for part in ref.split(","):
        folder, _, one = part.partition("=")
        folder = folder.strip().rstrip("/").rsplit("/", 1)[-1]
        if not folder or not one.strip() or folder in out.per_chat:
            raise InvalidRequest(
                f"a per-chat ref (--ref) is chat_NNN=c/<id> or chat_NNN=@handle, each folder "
                f"once, separated by commas: {ref!r}",
                field="ref",
            )
        named = _one_target(store, one.strip())
        named.store, named.taken = store, out.taken
        out.per_chat[folder] = named
    return out


def check_targets(target: HtmlTarget, folders: list[str], *, account: bool) -> None:
    """Refuse a ref that cannot name the export's chats.

    Raises:
        InvalidRequest: one ref for an export of several chats (or an account export),
            or a per-chat ref for a folder the export does not have.
    """
    single = target.handle is not None or target.chat_id is not None
    if single and (len(folders) > 1 or account):
        example = folders[0] if folders else "chat_001"
        raise InvalidRequest(
            "a ref (--ref) names one source, but a full-account export holds every chat; "
            f"import it without one, or name each chat by its folder ({example}=c/<id>)",
            field="ref",
        )
    unknown = sorted(set(target.per_chat) - set(folders))
    if unknown:
        shown = ", ".join(folders[:8]) + (", …" if len(folders) > 8 else "")
        raise InvalidRequest(
            f"the export has no chat folder {', '.join(unknown)} (its chats: {shown})",
            field="ref",
        )
