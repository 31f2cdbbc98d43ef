"""Staged imports, for every store: stage the whole file aside, then publish it in one short write.

An import that were one write transaction as long as the file would hold every other
writer (a sync, a key's last-used stamp, another import) for minutes. Instead, while
the export is read, its messages go to a staging table of the import's own
connection (``Connections.dedicated``) in the dialect's ``stage`` schema: a private
file attached next to the store in SQLite, the session's temporary schema in
PostgreSQL. Staging writes lock nothing of the store. Only when the whole file has
been read does ``publish`` apply the sources, the staged messages (set-based) and the
topics in ONE transaction. A file that breaks half-way never touches the store; a
``kill -9`` leaves the store as it was.

Counts are decided as the messages arrive (``writes.classify``), against the store's
committed rows and what this import staged before; ``publish`` applies the edit rule
again in SQL, so a concurrent writer's newer edit is never overwritten. New sources
get provisional ids (-1, -2, ...) until ``publish`` creates them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol, Unpack

from toolkit.models import Message, Source, UpsertResult
from toolkit.store.base import MessageStore
from toolkit.store.connections import Connections
from toolkit.store.dialect import Dialect, OnWait
from toolkit.store.rows import MSG_COLUMNS, SourceFields, source_fields, source_keys
from toolkit.store.writes import CONTENT, EDITABLE, by_source, classify, upsert_tail

_TABLE = """
CREATE TABLE {stage}.import_messages (
    source_id {int} NOT NULL, message_id {int} NOT NULL, posted_at {int} NOT NULL,
    edited_at {int}, sender_peer_id TEXT, sender_name TEXT, text TEXT NOT NULL,
    reply_to {int}, is_service {bool}, media TEXT, forwarded_from TEXT, topic_id {int},
    reactions TEXT, views {int}, forwards {int},
    PRIMARY KEY (source_id, message_id)
){norowid}
"""
_NEWER = "COALESCE(s.edited_at, 0) >= COALESCE(m.edited_at, 0)"
# A changed text invalidates the message's vectors (as in ``upsert_messages``).
_DROP_VECTORS = (
    "DELETE FROM embeddings WHERE source_id = ? AND message_id IN ("
    "SELECT s.message_id FROM {table} s JOIN messages m "
    "ON m.source_id = ? AND m.message_id = s.message_id "
    f"WHERE s.source_id = ? AND s.text != m.text AND {_NEWER})"
)
_APPLY = (
    f"INSERT INTO messages ({MSG_COLUMNS}) SELECT ?, {', '.join(MSG_COLUMNS.split(', ')[1:])} "
    "FROM {table} WHERE source_id = ? ON CONFLICT (source_id, message_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in EDITABLE)
    + " WHERE COALESCE(excluded.edited_at, 0) >= COALESCE(messages.edited_at, 0)"
)


class StagingStore(MessageStore, Protocol):
    """What staging needs of a store beyond ``MessageStore``."""

    connections: Connections
    dialect: Dialect

    def lookup_source(self, *, internal_id: int | None, handle: str | None) -> Source | None:
        """The stored source with this internal id, else with this handle."""
        ...

    def message_rows(
        self, source_id: int, message_ids: Sequence[int]
    ) -> dict[int, tuple[Any, ...]]:
        """Stored content of these messages, by id."""
        ...


@contextlib.contextmanager
def staged_import(store: StagingStore, on_wait: OnWait | None) -> Iterator[Staging]:
    """``MessageStore.staging``: the import's own connection, its turn, its staging area."""
    dialect = store.dialect
    with (
        store.connections.dedicated() as conn,
        dialect.import_turn(conn, on_wait),
        dialect.staging_area(conn),
    ):
        sink = Staging(store)
        try:
            yield sink
            sink.publish()
        finally:
            sink.discard()


class Staging:
    """An ``ImportSink`` staging into the calling thread's dedicated connection."""

    def __init__(self, store: StagingStore) -> None:
        self._store = store
        self._conns = store.connections
        self._table = f"{store.dialect.stage}.import_messages"
        self._sources: dict[int, Source] = {}
        self._topics: dict[int, dict[int, str]] = {}
        self._final: dict[int, Source] = {}
        self._next_key = -1
        self._spans: dict[int, tuple[int, int]] = {}  # lowest and highest id staged, by source
        with self._conns.transaction(begin="BEGIN"):
            self._conns.write(f"DROP TABLE IF EXISTS {self._table}")
            self._conns.write(
                _TABLE.format_map({**store.dialect.types, "stage": store.dialect.stage})
            )

    # ImportSink --------------------------------------------------------------------------
    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """The source as it will be after publishing (a new one gets a provisional id)."""
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        timezone = fields.get("timezone")
        source = next(
            (
                s
                for s in self._sources.values()
                if (internal_id is not None and s.internal_id == internal_id)
                or (handle is not None and s.handle == handle)
            ),
            None,
        ) or self._store.lookup_source(internal_id=internal_id, handle=handle)
        if source is None:
            source = Source(id=self._next_key, title=title, kind=kind)
            self._next_key -= 1
        source = replace(
            source,
            title=title,
            kind=kind,
            internal_id=source.internal_id or internal_id,
            handle=source.handle or handle,
            chat_type=chat_type or source.chat_type,
            timezone=timezone or source.timezone,
            timezone_origin=(fields.get("timezone_origin") if timezone else None)
            or source.timezone_origin,
        )
        self._sources[source.id] = source
        return source

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Stage messages; the counts say what publishing will do to the store."""
        total = UpsertResult()
        for key, batch in by_source(messages).items():
            ids = [m.messenger_message_id for m in batch]
            current = self._store.message_rows(key, ids) if key > 0 else {}
            current.update(self._staged_rows(key, ids))
            result, dirty, _ = classify(batch, current)
            with self._conns.transaction(begin="BEGIN"):
                self._conns.insert(
                    self._table,
                    MSG_COLUMNS,
                    [(key, mid, *row) for mid, row in dirty.items()],
                    upsert_tail(self._table, newer_only=False),
                )
            if dirty:
                low, high = self._spans.get(key, (min(dirty), max(dirty)))
                self._spans[key] = (min(low, *dirty), max(high, *dirty))
            total += result
        return total

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Stage forum topic titles (a later title replaces an earlier one)."""
        self._topics.setdefault(source_id, {}).update((int(t), title) for t, title in topics)

    def final(self, source: Source) -> Source:
        """The stored source a staged one became (after ``publish``)."""
        return self._final.get(source.id, source)

    # Staging internals -------------------------------------------------------------------
    def _staged_rows(self, key: int, ids: Sequence[int]) -> Mapping[int, tuple[Any, ...]]:
        """What this import staged of these messages. Only ids within the span it staged
        are looked up: an export in id order never looks anything up."""
        low, high = self._spans.get(key, (0, -1))
        ids = [i for i in ids if low <= i <= high]
        out: dict[int, tuple[Any, ...]] = {}
        columns = ", ".join(["message_id", *CONTENT])
        for clause, params in self._store.dialect.id_lists("message_id", ids):
            for row in self._conns.read(
                f"SELECT {columns} FROM {self._table} WHERE source_id = ? AND {clause}",
                (key, *params),
            ):
                out[row[0]] = tuple(row[1:])
        return out

    def publish(self) -> None:
        """Apply everything staged to the store in one write transaction."""
        store, write = self._store, self._conns.write
        with self._conns.transaction():
            for key, staged in self._sources.items():
                source = store.upsert_source(**source_fields(staged))
                self._final[key] = source
                write(_DROP_VECTORS.format(table=self._table), (source.id, source.id, key))
                write(_APPLY.format(table=self._table), (source.id, key))
                if key in self._spans:  # something was staged that changes the store
                    store.bump_generation(source.id)
                store.upsert_topics(source.id, self._topics.get(key, {}).items())

    def discard(self) -> None:
        """Drop the staging table (the connection and its area are the caller's)."""
        with contextlib.suppress(Exception), self._conns.transaction(begin="BEGIN"):
            self._conns.write(f"DROP TABLE IF EXISTS {self._table}")
