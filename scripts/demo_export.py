"""Shared pieces of the demo generator: timeline events and Telegram Desktop JSON output.

A demo source is built as a list of ``Event`` objects (a post, a media message or a
service action) on a timeline; ``write_export`` sorts them, numbers them 1..N in posting
order, resolves replies and pins to those numbers, and writes a single-chat export
shaped like Telegram Desktop's (``result.json``, 1-space indent, keys in its order).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

NOT_INCLUDED = "(File not included. Change data exporting settings to download.)"
_URL = re.compile(r"(https?://\S+|www\.\S+)")


@dataclass(eq=False)
class Event:
    """One message of a demo source before it has an id."""

    at: datetime
    sender: tuple[str, str] | None = None  # (name, peer id such as "user123")
    text: str = ""
    service: dict[str, Any] | None = None  # action fields; actor = sender
    media: dict[str, Any] = field(default_factory=dict)  # photo/file fields, in export order
    reply_to: Event | None = None
    pinned: Event | None = None  # for a pin_message action
    edited_after: timedelta | None = None
    forwarded_from: str | None = None
    order: int = 0  # ties on ``at`` keep creation order
    id: int = 0


def pin(target: Event, author: tuple[str, str] | None, at: datetime) -> Event:
    """A service message by ``author`` at ``at`` that pins ``target``."""
    return Event(at, author, service={"action": "pin_message"}, pinned=target)


def text_fields(text: str) -> tuple[Any, list[dict[str, str]]]:
    """``text`` and ``text_entities`` as the exporter writes them (links become entities)."""
    parts: list[dict[str, str]] = []
    for piece in _URL.split(text):
        if not piece:
            continue
        parts.append({"type": "link" if _URL.fullmatch(piece) else "plain", "text": piece})
    if all(p["type"] == "plain" for p in parts):
        return text, parts
    return [p["text"] if p["type"] == "plain" else p for p in parts], parts


def _dates(key: str, when: datetime, tz: timezone) -> dict[str, str]:
    local = when.astimezone(tz).replace(tzinfo=None).isoformat(timespec="seconds")
    return {key: local, f"{key}_unixtime": str(int(when.timestamp()))}


def _message(event: Event, tz: timezone) -> dict[str, Any]:
    out: dict[str, Any] = {"id": event.id, "type": "service" if event.service else "message"}
    out |= _dates("date", event.at, tz)
    if event.edited_after is not None:
        out |= _dates("edited", event.at + event.edited_after, tz)
    if event.service is not None:
        assert event.sender is not None
        out |= {"actor": event.sender[0], "actor_id": event.sender[1]}
        out |= event.service
        if event.pinned is not None:
            out["message_id"] = event.pinned.id
    else:
        if event.sender is not None:
            out |= {"from": event.sender[0], "from_id": event.sender[1]}
        if event.forwarded_from is not None:
            out["forwarded_from"] = event.forwarded_from
        if event.reply_to is not None:
            out["reply_to_message_id"] = event.reply_to.id
        out |= event.media
    out["text"], out["text_entities"] = text_fields(event.text)
    return out


def write_export(
    path: Path, *, name: str, chat_type: str, chat_id: int, events: list[Event], tz: timezone
) -> dict[str, int]:
    """Number ``events`` in posting order and write them as a single-chat export.

    Returns:
        Counts of what was written (messages, service, replies, edits, media, days).
    """
    for order, event in enumerate(events):
        event.order = order
    events.sort(key=lambda e: (e.at, e.order))
    for number, event in enumerate(events, start=1):
        event.id = number
    for event in events:
        for target in (event.reply_to, event.pinned):
            if target is not None and target.id >= event.id:
                raise ValueError(f"event {event.id} points forward to {target.id}")
    export = {
        "name": name,
        "type": chat_type,
        "id": chat_id,
        "messages": [_message(e, tz) for e in events],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        json.dump(export, out, ensure_ascii=False, indent=1)
        out.write("\n")
    span = events[-1].at - events[0].at
    return {
        "messages": len(events),
        "service": sum(1 for e in events if e.service),
        "replies": sum(1 for e in events if e.reply_to is not None),
        "edited": sum(1 for e in events if e.edited_after is not None),
        "media": sum(1 for e in events if e.media),
        "media_only": sum(1 for e in events if e.media and not e.text),
        "days": span.days,
        "bytes": path.stat().st_size,
    }


def week_shift(latest: datetime, window_end: datetime) -> timedelta:
    """Whole weeks that move ``latest`` to just before ``window_end`` (weekdays kept)."""
    weeks = (window_end - latest) // timedelta(weeks=1)
    return timedelta(weeks=weeks)


def utc(text: str) -> datetime:
    """Parse an ISO 8601 ``...Z`` timestamp as aware UTC."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
