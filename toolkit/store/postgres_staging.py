"""Staged imports for PostgreSQL: COPY the whole file aside, then publish it in one short write.

While the export is read, its messages are COPYed batch by batch into a temporary
table of the import's own session (``import_messages``), with no transaction open
on the store: syncs, key stamps and other writers go on. Counts are decided as the
messages arrive, against the committed rows and what this import staged before (the
same rules as ``upsert_messages``). When the whole file has been read, ``publish``
applies the sources, the staged messages (the same rules again, in SQL, so a
concurrent newer edit is never overwritten) and the topics in ONE transaction. A
file that breaks half-way never touches the store. New sources get their id from the
table's sequence at once, so messages can carry it before the source exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

import psycopg

from toolkit.models import Message, Source, SourceKind, UpsertResult
from toolkit.store.postgres_import import CONTENT, PUBLISH, outcome, rounds
from toolkit.store.rows import (
    MSG_COLUMNS,
    SOURCE_COLUMNS,
    SourceFields,
    source_fields,
    source_keys,
    to_source,
)

if TYPE_CHECKING:
    from toolkit.store.postgres import PostgresStore

_COLS = MSG_COLUMNS.split(", ")
_SETUP = (
    "DROP TABLE IF EXISTS import_messages, import_batch",
    "CREATE TEMP TABLE import_messages (LIKE messages INCLUDING DEFAULTS)",
    "ALTER TABLE import_messages ADD PRIMARY KEY (source_id, message_id)",
    "CREATE TEMP TABLE import_batch (LIKE messages INCLUDING DEFAULTS)",
)
# Each batch row against what came before it: this import's staged copy, else the store's.
_STAGE = f"""
WITH classified AS (
    SELECT b.*,
        {outcome("p", "b")} AS outcome
    FROM import_batch b
    LEFT JOIN LATERAL (
        (SELECT {MSG_COLUMNS} FROM import_messages s
         WHERE s.source_id = b.source_id AND s.message_id = b.message_id)
        UNION ALL
        (SELECT {MSG_COLUMNS} FROM messages m
         WHERE m.source_id = b.source_id AND m.message_id = b.message_id)
        LIMIT 1
    ) p ON TRUE
),
staged AS (
    INSERT INTO import_messages ({MSG_COLUMNS})
    SELECT {MSG_COLUMNS} FROM classified WHERE outcome <> 'unchanged'
    ON CONFLICT (source_id, message_id) DO UPDATE
    SET ({CONTENT}) = ({", ".join("EXCLUDED." + c for c in CONTENT.split(", "))})
)
SELECT
    COUNT(*) FILTER (WHERE outcome = 'inserted'),
    COUNT(*) FILTER (WHERE outcome = 'updated'),
    COUNT(*) FILTER (WHERE outcome = 'unchanged')
FROM classified
"""


@dataclass
class _StagedSource:
    title: str
    kind: SourceKind
    internal_id: int | None
    handle: str | None
    chat_type: str | None


class PgStaging:
    """An ``ImportSink`` staging into ``conn``'s temporary tables; ``publish`` lands it."""

    def __init__(self, store: PostgresStore, conn: psycopg.Connection) -> None:
        self._store = store
        self._conn = conn
        for sql in _SETUP:
            conn.execute(sql.encode())
        self._sources: dict[int, _StagedSource] = {}
        self._topics: dict[int, dict[int, str]] = {}
        self._final: dict[int, Source] = {}

    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """The source as it will be after publishing (a new one gets its id now)."""
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        staged = _StagedSource(title, kind, internal_id, handle, chat_type)
        for sid, old in self._sources.items():
            if (internal_id is not None and old.internal_id == internal_id) or (
                handle is not None and old.handle == handle
            ):
                staged.internal_id = internal_id or old.internal_id
                staged.handle = handle or old.handle
                staged.chat_type = chat_type or old.chat_type
                self._sources[sid] = staged
                return self._as_source(sid, staged)
        stored = self._committed(internal_id, handle)
        if stored is not None:
            sid = stored.id
            staged.internal_id = internal_id or stored.internal_id
            staged.handle = handle or stored.handle
            staged.chat_type = chat_type or stored.chat_type
        else:
            seq = "SELECT nextval(pg_get_serial_sequence('sources', 'id'))"
            row = self._conn.execute(seq.encode()).fetchone()
            assert row is not None
            sid = int(row[0])
        self._sources[sid] = staged
        return self._as_source(sid, staged)

    def _committed(self, internal_id: int | None, handle: str | None) -> Source | None:
        for column, value in (("internal_id", internal_id), ("handle", handle)):
            if value is None:
                continue
            sql = f"SELECT {SOURCE_COLUMNS} FROM sources WHERE {column} = %s"
            row = self._conn.execute(sql.encode(), (value,)).fetchone()
            if row is not None:
                return to_source(row)
        return None

    @staticmethod
    def _as_source(sid: int, s: _StagedSource) -> Source:
        return Source(
            id=sid,
            title=s.title,
            kind=s.kind,
            handle=s.handle,
            internal_id=s.internal_id,
            chat_type=s.chat_type,
        )

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Stage messages (COPY); counted as ``MessageStore.upsert_messages`` would."""
        total = UpsertResult()
        with self._conn.cursor() as cur:
            for rows in rounds(messages):
                with cur.copy(f"COPY import_batch ({MSG_COLUMNS}) FROM STDIN".encode()) as copy:
                    for row in rows:
                        copy.write_row(row)
                counts: Any = cur.execute(_STAGE.encode()).fetchone()
                cur.execute(b"TRUNCATE import_batch")
                total += UpsertResult(int(counts[0]), int(counts[1]), int(counts[2]))
        return total

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Stage topic titles (a later title replaces an earlier one)."""
        self._topics.setdefault(source_id, {}).update((int(t), title) for t, title in topics)

    def final(self, source: Source) -> Source:
        """The stored source that ``source`` became once the import landed."""
        return self._final.get(source.id, source)

    def publish(self) -> None:
        """Land everything staged in one transaction (sources, messages, topics)."""
        store, conn = self._store, self._conn
        with store.pg.transaction_on(conn):
            for sid, s in self._sources.items():
                real = store.upsert_source_as(new_id=sid, **source_fields(s))
                if real.id != sid:  # another writer created it meanwhile
                    move = "UPDATE import_messages SET source_id = %s WHERE source_id = %s"
                    conn.execute(move.encode(), (real.id, sid))
                self._final[sid] = real
            conn.execute(PUBLISH.format(table="import_messages").encode())
            for sid, topics in self._topics.items():
                store.upsert_topics(self._final[sid].id, topics.items())
            for sid, real in self._final.items():
                self._final[sid] = store.get_source_by_id(real.id)

    def discard(self) -> None:
        """Drop the staging tables (the session stays in the pool)."""
        self._conn.execute(b"DROP TABLE IF EXISTS import_messages, import_batch")
