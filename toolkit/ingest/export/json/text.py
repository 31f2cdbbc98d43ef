"""Text of exported messages: entity lists, media without a caption, service actions.

Pure functions, no I/O; a malformed value raises ``ValueError`` with the reason.

- ``flatten_text``: a ``text`` that is a list of strings and entity objects becomes one
  string; a ``text_link``'s address follows its visible text in brackets, before any
  trailing whitespace of that text, and is left out when the text already shows it.
- ``media_text``: a short form of a media message that has no caption, marked by its
  kind in brackets (``[sticker] 😀``, ``[contact] Ann Lee``, ``[file] report.pdf``), so
  search and summaries see it.
- ``service_text``: a readable line for a service message (``Alice joined the group``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_SCHEME_RE = re.compile(r"^(?:https?://)?(?:www\.)?", re.IGNORECASE)


def _bare_url(value: str) -> str:
    return _SCHEME_RE.sub("", value.strip()).rstrip("/").lower()


def _link_text(text: str, href: str) -> str:
    """``text`` with `` (href)`` after its last non-space character, unless it shows href."""
    if not href or (_bare_url(href) and _bare_url(href) in _bare_url(text)):
        return text or href
    body = text.rstrip()
    if not body:
        return f"{href}{text}"
    return f"{body} ({href}){text[len(body) :]}"


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
        if part.get("type") == "text_link" and isinstance(href, str):
            text = _link_text(text, href)
        parts.append(text)
    return "".join(parts)


def _str(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if isinstance(value, list):
        return flatten_text(value).strip()
    return value.strip() if isinstance(value, str) else ""


def _join(*parts: str, sep: str = ", ") -> str:
    return sep.join(p for p in parts if p)


def _headed_list(raw: dict[str, Any], key: str, head: str, items: str) -> tuple[str, list[str]]:
    """``raw[key]``'s ``head`` text and the texts of its ``items`` (``("", [])`` if absent)."""
    block = raw.get(key)
    if not isinstance(block, dict):
        return "", []
    texts = [_str(i, "text") for i in block.get(items) or [] if isinstance(i, dict)]
    return _str(block, head), texts


def _poll(raw: dict[str, Any]) -> str:
    question, answers = _headed_list(raw, "poll", "question", "answers")
    return f"{question} — {' / '.join(answers)}" if answers else question


def _todo(raw: dict[str, Any]) -> str:
    title, items = _headed_list(raw, "todo_list", "title", "items")
    return f"{title}: {'; '.join(items)}" if items and title else title or "; ".join(items)


def _file_name(raw: dict[str, Any]) -> str:
    name = _str(raw, "file_name")
    path = _str(raw, "file")
    # "(File not included. Change data exporting settings to download.)" names no file.
    if not name and path and not path.startswith("("):
        name = path.rsplit("/", 1)[-1]
    return name


def _contact(raw: dict[str, Any]) -> str:
    info = raw.get("contact_information")
    if not isinstance(info, dict):
        return ""
    return _join(_str(info, "first_name"), _str(info, "last_name"), sep=" ")


def _location(raw: dict[str, Any]) -> str:
    place = _join(_str(raw, "place_name"), _str(raw, "address"))
    if place:
        return place
    info = raw.get("location_information")
    if isinstance(info, dict) and "latitude" in info and "longitude" in info:
        return f"{info['latitude']}, {info['longitude']}"
    return ""


def _invoice(raw: dict[str, Any]) -> str:
    info = raw.get("invoice_information")
    return _str(info, "title") if isinstance(info, dict) else ""


_MEDIA_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "sticker": lambda r: _str(r, "sticker_emoji"),
    "contact": _contact,
    "venue": _location,
    "location": _location,
    "live_location": _location,
    "game": lambda r: _str(r, "game_title"),
    "todo": _todo,
    "poll": _poll,
    "invoice": _invoice,
    "audio_file": lambda r: _join(
        _join(_str(r, "performer"), _str(r, "title"), sep=" — "), _file_name(r)
    ),
    "file": _file_name,
    "video_file": _file_name,
}


def media_text(raw: dict[str, Any], media: str | None) -> str:
    """A short text form of a captionless media message, or ``""`` when it says nothing.

    Polls keep their plain ``question — answer / answer`` form; every other kind is
    marked by its name in brackets: ``[sticker] 😀``, ``[venue] Cafe, 1 Main St``.
    """
    if media is None:
        return ""
    render = _MEDIA_TEXT.get(media)
    body = render(raw) if render else ""
    if media == "poll" or not body:
        return body
    return f"[{media.replace('_', ' ')}] {body}"


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
    "topic_edit": lambda a, r: (
        f"{a} renamed the topic to «{r['new_title']}»"
        if r.get("new_title")
        else f"{a} edited a topic"
    ),
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
