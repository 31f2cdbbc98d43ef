"""Rows of the SQLite store and the model objects they become (no I/O here)."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from toolkit.models import ApiKeyRecord, Message, Source, SourceKind

MSG_COLUMNS = (
    "source_id, message_id, posted_at, edited_at, sender_peer_id, sender_name, text, "
    "reply_to, is_service, media, forwarded_from, topic_id"
)
"""The ``messages`` columns, in the order ``to_message`` reads them."""

KEY_COLUMNS = "id, name, prefix, key_hash, scopes, created_at, revoked_at, last_used_at"
SOURCE_COLUMNS = "id, internal_id, handle, title, kind, chat_type"
IN_CHUNK = 500
"""Ids per ``IN (...)`` list (SQLite allows 32,766 variables; smaller lists plan better)."""

Row = sqlite3.Row | tuple[Any, ...]


def ts(value: datetime | None) -> int | None:
    """Unix seconds of ``value`` (``None`` stays ``None``)."""
    return None if value is None else int(value.timestamp())


def dt(value: int | None) -> datetime | None:
    """The UTC datetime of Unix seconds (``None`` stays ``None``)."""
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


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


def to_message(row: Row) -> Message:
    """A ``Message`` from a row of ``MSG_COLUMNS``."""
    return Message(
        source_id=row[0],
        messenger_message_id=row[1],
        posted_at=datetime.fromtimestamp(row[2], tz=UTC),
        edited_at=dt(row[3]),
        sender_peer_id=row[4],
        sender_name=row[5],
        text=row[6],
        reply_to=row[7],
        is_service=bool(row[8]),
        media=row[9],
        forwarded_from=row[10],
        topic_id=row[11],
    )


def to_source(row: Row) -> Source:
    """A ``Source`` from a row of ``SOURCE_COLUMNS``."""
    return Source(
        id=row[0],
        internal_id=row[1],
        handle=row[2],
        title=row[3],
        kind=SourceKind(row[4]),
        chat_type=row[5],
    )


def to_key_record(row: Row) -> ApiKeyRecord:
    """An ``ApiKeyRecord`` from a row of ``KEY_COLUMNS``."""
    created = dt(row[5])
    assert created is not None
    return ApiKeyRecord(
        id=row[0],
        name=row[1],
        prefix=row[2],
        scopes=frozenset(s for s in row[4].split() if s),
        created_at=created,
        revoked_at=dt(row[6]),
        last_used_at=dt(row[7]),
    )


def time_filters(
    *,
    since: datetime | None,
    until: datetime | None,
    include_service: bool,
    with_text_only: bool,
    until_inclusive: bool,
    topic_id: int | None = None,
    sender_peer_ids: Sequence[str] | None = None,
) -> tuple[str, list[Any]]:
    """``" AND ..."`` clauses and their parameters for a window of messages."""
    clauses: list[str] = []
    params: list[Any] = []
    if topic_id is not None:
        clauses.append("topic_id = ?")
        params.append(int(topic_id))
    if sender_peer_ids is not None:
        senders = list(dict.fromkeys(sender_peer_ids))
        clauses.append(f"sender_peer_id IN ({','.join('?' * len(senders)) or 'NULL'})")
        params.extend(senders)
    if since is not None:
        clauses.append("posted_at >= ?")
        # Stored times are whole seconds: round a bound with a fraction so that
        # "posted_at >= 12:03:00.5" does not take a message of 12:03:00.
        params.append(math.ceil(since.timestamp()))
    if until is not None:
        clauses.append("posted_at <= ?" if until_inclusive else "posted_at < ?")
        bound = until.timestamp()
        params.append(math.floor(bound) if until_inclusive else math.ceil(bound))
    if not include_service:
        clauses.append("is_service = 0")
    if with_text_only:
        clauses.append("text != ''")
    return "".join(f" AND {c}" for c in clauses), params
