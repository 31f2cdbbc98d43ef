"""Turn one message object of a Telegram Desktop JSON export into a ``Message``.

Pure functions, no I/O. A malformed message raises ``ValueError`` with the reason only;
the importer adds where it happened (file, chat, message index and id).

Field notes (from the exporter's output): ``date`` is the exporting machine's local
time with no offset, so ``date_unixtime`` (a string of seconds) wins whenever present;
a lone ``date`` is read as UTC (DESIGN.md §3: naive means UTC). Service messages carry
``actor``/``actor_id`` and ``action`` instead of ``from``/``from_id`` and text, so a
readable text is written for them here. Entries of type ``unsupported`` hold no message
and are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from toolkit.models import Message, SourceKind

_PEER_RE = re.compile(r"^(?:user|chat|channel)(\d+)$")
CHANNEL_TYPES = frozenset({"public_channel", "private_channel"})
_UNNAMED_TITLES = {"saved_messages": "Saved Messages", "replies": "Replies"}
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
)


def source_kind(chat_type: str | None) -> SourceKind:
    """The kind of source an export's chat ``type`` names (channels vs. every chat kind)."""
    return SourceKind.CHANNEL if chat_type in CHANNEL_TYPES else SourceKind.CHAT


def chat_title(name: str | None, chat_type: str | None, chat_id: int) -> str:
    """The chat's title; Saved Messages and Replies have no ``name`` in an export."""
    if name:
        return name
    return _UNNAMED_TITLES.get(chat_type or "", f"Chat {chat_id}")


def chat_id(value: Any) -> int:
    """The bare numeric id of a chat (a ``-100`` Bot-API prefix is removed)."""
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        raise ValueError(f"the chat 'id' must be a non-zero integer, not {value!r}")
    if value > 0:
        return value
    digits = str(-value)
    return int(digits[3:]) if digits.startswith("100") and len(digits) > 3 else -value


def flatten_text(value: Any) -> str:
    """Plain text from ``text``: a string, or a list of strings and entity objects.

    A ``text_link`` keeps its visible text and adds its address in brackets, so the
    link stays readable and searchable: ``"the docs (https://example.org/docs)"``.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise ValueError(f"'text' must be a string or a list, not {type(value).__name__}")
    parts: list[str] = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
            continue
        if not isinstance(part, dict) or not isinstance(part.get("text", ""), str):
            raise ValueError(f"'text' holds {part!r}, neither a string nor an entity object")
        text: str = part.get("text", "")
        href = part.get("href")
        if part.get("type") == "text_link" and isinstance(href, str) and href and href not in text:
            text = f"{text} ({href})" if text else href
        parts.append(text)
    return "".join(parts)


def _time(raw: dict[str, Any], key: str) -> datetime | None:
    unix = raw.get(f"{key}_unixtime")
    if unix is not None:
        if isinstance(unix, str) and unix.strip().lstrip("-").isdigit():
            unix = int(unix)
        if isinstance(unix, bool) or not isinstance(unix, int | float):
            raise ValueError(f"'{key}_unixtime' is not a number of seconds: {unix!r}")
        try:
            return datetime.fromtimestamp(unix, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(f"'{key}_unixtime' {unix!r} is out of range") from exc
    local = raw.get(key)
    if local is None:
        return None
    if not isinstance(local, str):
        raise ValueError(f"'{key}' is not an ISO 8601 string: {local!r}")
    try:
        parsed = datetime.fromisoformat(local)
    except ValueError as exc:
        raise ValueError(f"'{key}' is not an ISO 8601 date: {local!r}") from exc
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _peer(value: Any) -> str | None:
    """``user123``/``channel123`` as given; a bare number (old exports) is a user."""
    if value is None or isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return f"user{value}"
    raise ValueError(f"a peer id must be a string like 'user123', not {value!r}")


def _names(raw: dict[str, Any]) -> str:
    members = [m if isinstance(m, str) else "a deleted account" for m in raw.get("members") or []]
    if len(members) <= 1:
        return members[0] if members else "members"
    return ", ".join(members[:-1]) + " and " + members[-1]


def _removed(actor: str, raw: dict[str, Any]) -> str:
    if raw.get("members") == [actor]:
        return f"{actor} left the group"
    return f"{actor} removed {_names(raw)}"


def _added(actor: str, raw: dict[str, Any]) -> str:
    if raw.get("members") == [actor]:
        return f"{actor} joined the group"
    return f"{actor} added {_names(raw)}"


_ACTIONS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "create_group": lambda a, r: f"{a} created the group «{r.get('title', '')}»",
    "create_channel": lambda a, r: f"{a} created the channel «{r.get('title', '')}»",
    "edit_group_title": lambda a, r: f"{a} changed the title to «{r.get('title', '')}»",
    "edit_group_photo": lambda a, r: f"{a} changed the photo",
    "delete_group_photo": lambda a, r: f"{a} removed the photo",
    "invite_members": _added,
    "remove_members": _removed,
    "join_group_by_link": lambda a, r: f"{a} joined the group via an invite link",
    "join_group_by_request": lambda a, r: f"{a} joined the group after a request",
    "migrate_to_supergroup": lambda a, r: f"{a} converted the group to a supergroup",
    "migrate_from_group": lambda a, r: f"{a} converted «{r.get('title', '')}» to a supergroup",
    "pin_message": lambda a, r: f"{a} pinned message {r.get('message_id', '')}".rstrip(),
    "clear_history": lambda a, r: f"{a} cleared the history",
    "group_call": lambda a, r: f"{a} started a video chat",
    "invite_to_group_call": lambda a, r: f"{a} invited {_names(r)} to the video chat",
    "group_call_scheduled": lambda a, r: f"{a} scheduled a video chat",
    "set_messages_ttl": lambda a, r: f"{a} set messages to auto-delete",
    "edit_chat_theme": lambda a, r: f"{a} changed the chat theme",
    "topic_created": lambda a, r: f"{a} created the topic «{r.get('title', '')}»",
    "topic_edit": lambda a, r: f"{a} edited a topic",
    "phone_call": lambda a, r: f"{a} made a call",
    "joined_telegram": lambda a, r: f"{a} joined Telegram",
}


def service_text(raw: dict[str, Any]) -> str:
    """A readable line for a service message: ``"Alice joined the group"``."""
    actor = raw.get("actor") if isinstance(raw.get("actor"), str) else None
    actor = actor or "Someone"
    info = raw.get("information_text")
    if isinstance(info, str) and info:
        return info
    action = raw.get("action")
    if not isinstance(action, str) or not action:
        return f"{actor}: service message"
    render = _ACTIONS.get(action)
    return render(actor, raw) if render else f"{actor}: {action.replace('_', ' ')}"


def _media(raw: dict[str, Any]) -> str | None:
    media_type = raw.get("media_type")
    if isinstance(media_type, str) and media_type:
        return media_type
    return next((name for key, name in _MEDIA_KEYS if key in raw), None)


def _poll_text(raw: dict[str, Any]) -> str:
    poll = raw.get("poll")
    if not isinstance(poll, dict):
        return ""
    answers = [a.get("text", "") for a in poll.get("answers") or [] if isinstance(a, dict)]
    question = str(poll.get("question", ""))
    return f"{question} — {' / '.join(answers)}" if answers else question


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


def to_message(raw: Any, *, source_id: int, chat: int) -> Message | None:
    """Convert one exported message; ``None`` for entries that hold no message.

    Args:
        raw: the message object as parsed from the export.
        source_id: the store's id of the source it belongs to.
        chat: the export's numeric chat id (to tell in-chat replies from others).

    Raises:
        ValueError: the object lacks a valid ``id`` or date, or a field has a wrong type.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"a message must be a JSON object, not {type(raw).__name__}")
    mid = raw.get("id")
    if isinstance(mid, bool) or not isinstance(mid, int):
        raise ValueError(f"'id' must be an integer, not {mid!r}")
    kind = raw.get("type", "message")
    if kind == "unsupported":
        return None
    is_service = kind == "service"
    forwarded = raw.get("forwarded_from") if "forwarded_from" in raw else None
    if "forwarded_from" in raw and not isinstance(forwarded, str):
        forwarded = _peer(raw.get("forwarded_from_id")) or "a hidden sender"
    sender_key = "actor" if is_service else "from"
    sender_name = raw.get(sender_key)
    posted = _time(raw, "date")
    if posted is None:
        raise ValueError("no 'date' or 'date_unixtime'")
    text = service_text(raw) if is_service else flatten_text(raw.get("text"))
    if not text and "poll" in raw:
        text = _poll_text(raw)
    return Message(
        source_id=source_id,
        messenger_message_id=mid,
        posted_at=posted,
        edited_at=_time(raw, "edited"),
        text=text,
        sender_peer_id=_peer(raw.get(f"{sender_key}_id")),
        sender_name=sender_name if isinstance(sender_name, str) else None,
        reply_to=None if is_service else _reply_to(raw, chat),
        is_service=is_service,
        media=None if is_service else _media(raw),
        forwarded_from=forwarded,
    )
