"""Turn one message object of a Telegram Desktop JSON export into a ``Message``.

Pure functions, no I/O. A malformed message raises ``ValueError`` with the reason only;
the importer adds where it happened (file, chat, message index and id).

Field notes (from the exporter's output): ``date`` is the exporting machine's local
time with no offset, so ``date_unixtime`` (a string of seconds) wins whenever present;
a lone ``date`` is read as ``export_times`` explains. Service messages carry
``actor``/``actor_id`` and ``action`` instead of ``from``/``from_id`` and text, so a
readable text is written for them (``export_text``). Older exports write ``from_id`` as
a bare number: a channel's own id there means the channel posted (``channel<id>``),
any other number is a user. Entries of type ``unsupported`` hold no message and are
skipped; so are messages with an impossible date (``ImpossibleDate``). Reactions are
read as counts per emoji (``export_reactions``); exports carry no views or forwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolkit.controls import clean_message, clean_text
from toolkit.ingest.export.json.reactions import export_reactions
from toolkit.ingest.export.json.text import flatten_text, media_text, service_text
from toolkit.ingest.export.json.topics import TopicTracker
from toolkit.ingest.export.times import ImpossibleDate, LocalTimes
from toolkit.models import Message, SourceKind, build_message

_PEER_RE = re.compile(r"^(?:user|chat|channel)(\d+)$")
CHANNEL_TYPES = frozenset({"public_channel", "private_channel"})
# Chats whose numeric id is a channel's (supergroups are channels to the messenger).
_CHANNEL_IDS = CHANNEL_TYPES | {"public_supergroup", "private_supergroup"}
UNNAMED_TITLES = {"saved_messages": "Saved Messages", "replies": "Replies"}
# Chat types that have no public handle (a private channel or group, a personal chat).
NO_HANDLE_TYPES = frozenset(
    {
        "private_channel",
        "private_supergroup",
        "private_group",
        "personal_chat",
        "bot_chat",
        "saved_messages",
        "replies",
        "verification_codes",
    }
)
# Keys that mark a message's attachment, in the order the exporter writes them.
_MEDIA_KEYS = (
    ("photo", "photo"),
    ("file", "file"),
    ("poll", "poll"),
    ("contact_information", "contact"),
    ("place_name", "venue"),
    ("location_information", "location"),
    ("game_title", "game"),
    ("invoice_information", "invoice"),
    ("todo_list", "todo"),
)
_MEDIA_KEY_SET = frozenset(key for key, _ in _MEDIA_KEYS)


def source_kind(chat_type: str | None) -> SourceKind:
    """The kind of source an export's chat ``type`` names (channels vs. every chat kind)."""
    return SourceKind.CHANNEL if chat_type in CHANNEL_TYPES else SourceKind.CHAT


def chat_title(name: str | None, chat_type: str | None, chat_id: int) -> str:
    """The chat's title; Saved Messages and Replies have no ``name`` in an export."""
    if name and (title := clean_text(name)).strip():
        return title
    return UNNAMED_TITLES.get(chat_type or "", f"Chat {chat_id}")


def chat_id(value: Any) -> int:
    """The bare numeric id of a chat (a ``-100`` Bot-API prefix is removed)."""
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        raise ValueError(f"the chat 'id' must be a non-zero integer, not {value!r}")
    if value > 0:
        return value
    digits = str(-value)
    return int(digits[3:]) if digits.startswith("100") and len(digits) > 3 else -value


@dataclass
class ChatContext:
    """What converting one chat's messages needs and learns: its id and type, the
    date reader of the import, its forum topics, what it noticed on the way."""

    chat_id: int
    chat_type: str | None
    times: LocalTimes = field(default_factory=LocalTimes)
    topics: TopicTracker = field(default_factory=TopicTracker)
    numeric_senders: int = 0
    null_texts: int = 0
    cleaned: int = 0


def _peer(value: Any, chat: ChatContext | None = None) -> str | None:
    """``user123``/``channel123`` as given; a bare number (old exports) is a user, or the
    channel itself when it is the id of a channel or supergroup chat."""
    if value is None or isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        if chat is None:
            return f"user{value}"
        chat.numeric_senders += 1
        if value == chat.chat_id and chat.chat_type in _CHANNEL_IDS:
            return f"channel{value}"
        return f"user{value}"
    raise ValueError(f"a peer id must be a string like 'user123', not {value!r}")


def _media(raw: dict[str, Any]) -> str | None:
    if "media_type" not in raw and _MEDIA_KEY_SET.isdisjoint(raw):
        return None  # a text message: most of them
    media_type = raw.get("media_type")
    if isinstance(media_type, str) and media_type:
        return media_type
    return next((name for key, name in _MEDIA_KEYS if key in raw), None)


def _reply_to(raw: dict[str, Any], this_chat: int) -> int | None:
    target = raw.get("reply_to_message_id")
    if target is None:
        return None
    if isinstance(target, bool) or not isinstance(target, int):
        raise ValueError(f"'reply_to_message_id' is not an integer: {target!r}")
    # A reply into another chat (a channel's discussion group) names no message here.
    peer = _PEER_RE.match(str(raw.get("reply_to_peer_id", "")))
    if peer and int(peer.group(1)) != this_chat:
        return None
    return target


def to_message(raw: Any, *, source_id: int, chat: int | ChatContext) -> Message | None:
    """Convert one exported message; ``None`` for entries that hold no message.

    Args:
        raw: the message object as parsed from the export.
        source_id: the store's id of the source it belongs to.
        chat: the chat's context (id, type, date reader, topics); a bare chat id is a
            chat of unknown type whose lone dates are read as UTC.

    Raises:
        ImpossibleDate: a date the messenger cannot have written (skip and report).
        ValueError: the object lacks a valid ``id`` or date, or a field has a wrong type.
    """
    ctx = chat if isinstance(chat, ChatContext) else ChatContext(chat, None)
    if not isinstance(raw, dict):
        raise ValueError(f"a message must be a JSON object, not {type(raw).__name__}")
    mid = raw.get("id")
    if isinstance(mid, bool) or not isinstance(mid, int):
        raise ValueError(f"'id' must be an integer, not {mid!r}")
    kind = raw.get("type", "message")
    if kind == "unsupported":
        return None
    is_service = kind == "service"
    forwarded = None
    if "forwarded_from" in raw:
        forwarded = raw["forwarded_from"]
        if not isinstance(forwarded, str):
            forwarded = _peer(raw.get("forwarded_from_id")) or "a hidden sender"
    sender_key = "actor" if is_service else "from"
    sender_name = raw.get(sender_key)
    posted = ctx.times.read(raw, "date")
    if posted is None:
        raise ValueError("no 'date' or 'date_unixtime'")
    edited = None
    if "edited" in raw or "edited_unixtime" in raw:  # most messages were never edited
        try:
            edited = ctx.times.read(raw, "edited")
        except ImpossibleDate:
            edited = None
    media = None if is_service else _media(raw)
    if is_service:
        text = service_text(raw)
        topic, reply_to = ctx.topics.service(raw, mid), None
    else:
        ctx.null_texts += "text" in raw and raw["text"] is None
        text = flatten_text(raw.get("text")) or media_text(raw, media)
        topic, reply_to = ctx.topics.message(mid, _reply_to(raw, ctx.chat_id))
    # Slot by slot (``build_message``), in the order of ``Message``'s fields: this runs for
    # every message of an import.
    message = build_message(
        source_id,
        mid,
        posted,
        text,
        _peer(raw.get("actor_id" if is_service else "from_id"), ctx),
        sender_name if isinstance(sender_name, str) else None,
        reply_to,
        edited,
        is_service,
        media,
        forwarded,
        topic,
        export_reactions(raw) if "reactions" in raw else (),  # most messages have none
    )
    cleaned = clean_message(message)
    ctx.cleaned += cleaned is not message
    return cleaned
