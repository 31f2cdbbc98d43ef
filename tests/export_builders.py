"""Small Telegram Desktop exports, written the way the exporter writes them.

Field names, value shapes and chat types follow Telegram Desktop's JSON export
(``export_output_json.cpp``): ``date`` is local time without an offset,
``date_unixtime`` a string of seconds (absent in exports of older versions), ``from_id``
``"user123"``/``"channel123"`` (a bare number in older versions), service messages carry
``actor``/``actor_id``/``action``, a single-chat export is ``{name, type, id, messages}``
and a full-account export lists chats under ``chats.list`` and ``left_chats.list``;
a message with reactions lists them under ``reactions`` (``emoji_reaction`` ...).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

T0 = datetime(2024, 4, 1, 9, 0, tzinfo=UTC)
LOCAL = timedelta(hours=3)  # the exporting machine's offset in these fixtures


def when(minute: int) -> datetime:
    """The UTC time of a fixture message posted ``minute`` minutes after ``T0``."""
    return T0 + timedelta(minutes=minute)


def message(
    mid: int,
    text: Any = "",
    *,
    minute: int | None = None,
    sender: str = "Alice",
    sender_id: Any = "user1001",
    unixtime: bool = True,
    **fields: Any,
) -> dict[str, Any]:
    """A regular message; ``unixtime=False`` writes it as older exporters did."""
    moment = when(mid if minute is None else minute)
    out: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "date": (moment + LOCAL).replace(tzinfo=None).isoformat(),
    }
    if unixtime:
        out["date_unixtime"] = str(int(moment.timestamp()))
    out |= {"from": sender, "from_id": sender_id, "text": text} | fields
    return out


def emoji_reaction(emoji: str, count: int, *, recent: list[str] | None = None) -> dict[str, Any]:
    """An emoji reaction as the exporter writes it; ``recent`` names who gave it last."""
    out: dict[str, Any] = {"type": "emoji", "count": count, "emoji": emoji}
    if recent:
        out["recent"] = [
            {"from": name, "from_id": f"user{2000 + i}", "date": when(i).isoformat()}
            for i, name in enumerate(recent)
        ]
    return out


def custom_reaction(document_id: str, count: int) -> dict[str, Any]:
    """A custom emoji reaction (the exporter writes its document id as a string)."""
    return {"type": "custom_emoji", "count": count, "document_id": document_id}


def paid_reaction(count: int) -> dict[str, Any]:
    """Paid (star) reactions."""
    return {"type": "paid", "count": count}


def service(mid: int, action: str, *, actor: str = "Alice", **fields: Any) -> dict[str, Any]:
    """A service message (``type: service``) with its action's fields."""
    moment = when(mid)
    return {
        "id": mid,
        "type": "service",
        "date": (moment + LOCAL).replace(tzinfo=None).isoformat(),
        "date_unixtime": str(int(moment.timestamp())),
        "actor": actor,
        "actor_id": "user1001",
        "action": action,
        "text": "",
    } | fields


def chat(
    messages: list[dict[str, Any]], *, name: str | None, type_: str, id_: int
) -> dict[str, Any]:
    """A single-chat export (or one chat of a full-account export)."""
    return {"name": name, "type": type_, "id": id_, "messages": messages}


def account(
    chats: list[dict[str, Any]], left: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A full-account export: personal information, then the chats lists."""
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": 1001, "first_name": "Alice"},
        "chats": {"about": "This page lists all chats.", "list": chats},
        "left_chats": {"about": "Chats you left.", "list": left or []},
    }


def write(path: Path, export: dict[str, Any]) -> Path:
    """Write an export as the exporter does (UTF-8, non-ASCII kept)."""
    path.write_text(json.dumps(export, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def forum() -> dict[str, Any]:
    """A private forum supergroup: General chatter, two topics (one renamed), replies."""
    return chat(
        [
            service(1, "migrate_from_group", title="Team"),
            message(2, "welcome to the forum"),  # General
            service(3, "topic_created", title="Releases"),
            message(4, "release 1.2 is out", reply_to_message_id=3),
            message(5, "which build?", reply_to_message_id=4, from_id="user1002", sender="Bob"),
            service(6, "topic_created", title="Hiring"),
            message(7, "we need a designer", reply_to_message_id=6),
            message(8, "lunch anyone?"),  # General again
            message(9, "build 1.2.3", reply_to_message_id=5),  # deeper in Releases
            service(10, "topic_edit", new_title="Jobs", reply_to_message_id=6),
            message(11, "portfolio attached", reply_to_message_id=7, from_id="user1002"),
        ],
        name="Team forum",
        type_="private_supergroup",
        id_=1_777_000_001,
    )
