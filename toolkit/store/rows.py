"""Rows of the stores and the model objects they become, shared by SQLite and PostgreSQL.

No I/O here. Every store keeps times as Unix seconds and uses the same column lists;
SQL fragments are written with ``?`` placeholders (``dialect.rewrite`` adapts them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any, NotRequired, Protocol, TypedDict, TypeVar

from toolkit.models import (
    ZONE_ORIGINS,
    ApiKeyRecord,
    Message,
    MessageFilter,
    Reactions,
    Source,
    SourceKind,
    ZoneOrigin,
    reaction_counts,
)

MSG_COLUMNS = (
    "source_id, message_id, posted_at, edited_at, sender_peer_id, sender_name, text, "
    "reply_to, is_service, media, forwarded_from, topic_id, reactions, views, forwards"
)
"""The ``messages`` columns, in the order ``to_message`` reads them."""

SOURCE_COLUMNS = "id, internal_id, handle, title, kind, chat_type, timezone, timezone_origin"
KEY_COLUMNS = "id, name, prefix, key_hash, scopes, created_at, revoked_at, last_used_at"


class SourceFields(TypedDict):
    """What ``upsert_source`` takes, as keywords: a source's title, kind and the keys
    that find it again (``chat_type`` is the export's type name)."""

    title: str
    kind: SourceKind
    internal_id: NotRequired[int | None]
    handle: NotRequired[str | None]
    chat_type: NotRequired[str | None]
    timezone: NotRequired[str | None]
    timezone_origin: NotRequired[ZoneOrigin | None]


class CacheBounds(TypedDict, total=False):
    """The bounds ``cache_put`` keeps the cache within, as keywords (``None``: none)."""

    max_entries: int | None
    max_bytes: int | None
    """Of the values, in UTF-8."""


class _SourceLike(Protocol):
    @property
    def title(self) -> str: ...
    @property
    def kind(self) -> SourceKind: ...
    @property
    def internal_id(self) -> int | None: ...
    @property
    def handle(self) -> str | None: ...
    @property
    def chat_type(self) -> str | None: ...


def source_fields(source: _SourceLike) -> SourceFields:
    """The ``upsert_source`` keywords that store ``source`` (a ``Source`` or alike; its
    ``timezone`` when it has one: a live fetch knows none)."""
    return SourceFields(
        title=source.title,
        kind=source.kind,
        internal_id=source.internal_id,
        handle=source.handle,
        chat_type=source.chat_type,
        timezone=getattr(source, "timezone", None),
        timezone_origin=getattr(source, "timezone_origin", None),
    )


def source_keys(fields: SourceFields) -> tuple[int | None, str | None]:
    """The internal id and lower-cased handle that find a source.

    Raises:
        ValueError: neither is given.
    """
    internal_id, handle = fields.get("internal_id"), fields.get("handle")
    if internal_id is None and handle is None:
        raise ValueError("a source needs an internal id or a handle")
    return internal_id, handle.lower() if handle else None


def ts(value: datetime | None) -> int | None:
    """Unix seconds of ``value`` (``None`` stays ``None``)."""
    return None if value is None else int(value.timestamp())


def dt(value: int | None) -> datetime | None:
    """The UTC datetime of Unix seconds (``None`` stays ``None``)."""
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def when(value: int) -> datetime:
    """The UTC datetime of Unix seconds of a column that is never empty."""
    moment = dt(value)
    assert moment is not None
    return moment


R = TypeVar("R")


@cache
def _names(columns: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in columns.split(","))


def from_row(
    record: Callable[..., R], columns: str, row: Sequence[Any], **read: Callable[[Any], Any]
) -> R:
    """A record from a row of ``columns`` (a SELECT's list, named as the record's fields),
    each value as stored unless ``read`` names how to read it (``when`` for a time)."""
    values = zip(_names(columns), row, strict=True)
    return record(**{name: read[name](v) if name in read else v for name, v in values})


def reactions_json(reactions: Reactions) -> str | None:
    """Reactions as stored: a JSON object of counts by key, most given first; ``None``
    for none."""
    if not reactions:
        return None
    return json.dumps(dict(reactions), ensure_ascii=False, separators=(",", ":"))


def read_reactions(value: str | None) -> Reactions:
    """Stored reactions (``reactions_json``) as ``(key, count)`` pairs; ``()`` for none,
    and for a value that is no such object (never an error on a read path)."""
    if not value:
        return ()
    try:
        found = json.loads(value)
        return reaction_counts((str(k), int(v)) for k, v in found.items())
    except (ValueError, TypeError, AttributeError):
        return ()


def to_message(row: Sequence[Any]) -> Message:
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
        reactions=read_reactions(row[12]),
        views=row[13],
        forwards=row[14],
    )


def to_source(row: Sequence[Any]) -> Source:
    """A ``Source`` from a row of ``SOURCE_COLUMNS``."""
    sid, internal_id, handle, title, kind, chat_type, timezone, origin = row
    origin = origin if origin in ZONE_ORIGINS else None
    return Source(sid, title, SourceKind(kind), handle, internal_id, chat_type, timezone, origin)


def to_key_record(row: Sequence[Any]) -> ApiKeyRecord:
    """An ``ApiKeyRecord`` from a row of ``KEY_COLUMNS``."""
    return ApiKeyRecord(
        id=row[0],
        name=row[1],
        prefix=row[2],
        scopes=frozenset(s for s in row[4].split() if s),
        created_at=datetime.fromtimestamp(row[5], tz=UTC),
        revoked_at=dt(row[6]),
        last_used_at=dt(row[7]),
    )


def content_values(m: Message) -> tuple[Any, ...]:
    """A message's stored columns after ``source_id, message_id`` (``MSG_COLUMNS`` order)."""
    # ``ts`` and ``reactions_json`` written out: this runs for every message stored.
    edited, reactions = m.edited_at, m.reactions
    return (
        int(m.posted_at.timestamp()),
        None if edited is None else int(edited.timestamp()),
        m.sender_peer_id,
        m.sender_name,
        m.text,
        m.reply_to,
        bool(m.is_service),
        m.media,
        m.forwarded_from,
        m.topic_id,
        reactions_json(reactions) if reactions else None,
        m.views,
        m.forwards,
    )


def posting_order(*, newest_first: bool = False, alias: str = "") -> str:
    """``ORDER BY`` posting time then message id (of table ``alias`` when given)."""
    a = f"{alias}." if alias else ""
    way = " DESC" if newest_first else ""
    return f"ORDER BY {a}posted_at{way}, {a}message_id{way}"


def filter_clause(where: MessageFilter, *, arrays: bool) -> tuple[str, list[Any]]:
    """``" AND ..."`` clauses and their parameters that take the messages ``where``
    takes: the one place a ``MessageFilter`` becomes SQL (``arrays``: the dialect binds a
    list to ``= ANY(?)``; else the senders are spelled out in ``IN (...)``).

    Stored times are whole seconds: a bound with a fraction is rounded so that
    ``posted_at >= 12:03:00.5`` does not take a message of 12:03:00.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if where.topic_id is not None:
        clauses.append("topic_id = ?")
        params.append(int(where.topic_id))
    if where.sender_peer_ids is not None:
        senders = list(where.sender_peer_ids)
        if arrays:
            clauses.append("sender_peer_id = ANY(?)")
            params.append(senders)
        else:  # an empty list matches nothing
            clauses.append(f"sender_peer_id IN ({','.join('?' * len(senders)) or 'NULL'})")
            params.extend(senders)
    if where.since is not None:
        clauses.append("posted_at >= ?")
        params.append(math.ceil(where.since.timestamp()))
    if where.until is not None:
        clauses.append("posted_at <= ?")
        params.append(math.floor(where.until.timestamp()))
    if where.before is not None:
        clauses.append("posted_at < ?")
        params.append(math.ceil(where.before.timestamp()))
    if not where.include_service:
        clauses.append("NOT is_service")
    if where.with_text_only:
        clauses.append("text != ''")
    return "".join(f" AND {c}" for c in clauses), params
