"""Rows of the SQLite store and the model objects they become (no I/O here).

The column lists and row conversions are the stores' shared ones (``rows.py``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from toolkit.models import Message
from toolkit.store.rows import ts

IN_CHUNK = 500
"""Ids per ``IN (...)`` list (SQLite allows 32,766 variables; smaller lists plan better)."""

Row = sqlite3.Row | tuple[Any, ...]


def message_row(m: Message) -> tuple[Any, ...]:
    """A message's stored columns after ``source_id, message_id``."""
    return (
        ts(m.posted_at),
        ts(m.edited_at),
        m.sender_peer_id,
        m.sender_name,
        m.text,
        m.reply_to,
        int(m.is_service),
        m.media,
        m.forwarded_from,
        m.topic_id,
    )
