"""The embedded SQLite ``MessageStore``: one file under ``./data/`` (or ``:memory:``).

Readers never wait for writers: WAL journal, one writer connection and a pool of
read-only connections (``sqlite_db.Connections``). Writes are ``BEGIN IMMEDIATE``
transactions that queue behind other writers (other threads and processes) instead of
failing. An import stages the whole file aside and publishes it in one short write
(``staging``); writes a read path wants (a lazily computed vector, a key's last-used
stamp) go through ``write_behind`` to a background thread. The data folder is created
0700 and the database files 0600.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Unpack

from toolkit.errors import StoreError
from toolkit.models import Source, SourceStats
from toolkit.store.background import BackgroundWriter, BackgroundWrites
from toolkit.store.migrations import migrate
from toolkit.store.reads import SourceLookups
from toolkit.store.rows import SOURCE_COLUMNS, SourceFields, dt, source_keys, to_source, ts
from toolkit.store.sqlite_db import Connections, OnWait
from toolkit.store.sqlite_keys import KeysAndCache
from toolkit.store.sqlite_messages import Messages
from toolkit.store.sqlite_staging import SQLiteStaging
from toolkit.store.sqlite_topics import Topics
from toolkit.store.sqlite_vectors import WatermarksAndVectors


class SQLiteStore(
    Messages, WatermarksAndVectors, Topics, KeysAndCache, BackgroundWrites, SourceLookups
):
    """SQLite implementation of ``MessageStore``.

    Args:
        database: a file path, or ``":memory:"`` for a private in-memory store (tests).
        busy_timeout_ms: how long one statement waits for a lock before it is retried.
        write_wait_s: how long a write waits for its turn behind other writers in all.
    """

    def __init__(
        self,
        database: str | Path = ":memory:",
        *,
        busy_timeout_ms: int = 5000,
        write_wait_s: float = 600.0,
    ) -> None:
        self.database = str(database)
        try:
            self._conns = Connections(
                self.database, busy_timeout_ms=busy_timeout_ms, write_wait_s=write_wait_s
            )
            with self._conns.write_lock:
                migrate(self._conns.writer)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the store at {self.database}: {exc}") from exc
        self._background = BackgroundWriter(f"store-writer:{Path(self.database).name}")

    # Transactions ------------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one."""
        with self._conns.transaction():
            yield

    @contextlib.contextmanager
    def staging(self, *, on_wait: OnWait | None = None) -> Iterator[SQLiteStaging]:
        """An import sink: stage everything, publish on a clean exit, discard on an error.

        Imports into this store take turns (threads and processes alike); a waiting one
        calls ``on_wait("waiting for another import to finish…")`` once.
        """
        if self._conns.depth:
            raise StoreError("an import cannot run inside another write transaction")
        with self._conns.import_turn(on_wait):
            folder = None if self._conns.memory else Path(self.database).parent
            prefix = f".{Path(self.database).name}.stage-"
            if folder is not None:
                # Only the holder of the turn stages: any staging file left here is from
                # an import that was killed, and nobody will ever publish it.
                for stale in folder.glob(f"{glob.escape(prefix)}*"):
                    with contextlib.suppress(OSError):
                        stale.unlink()
            fd, name = tempfile.mkstemp(prefix=prefix, suffix=".sqlite3", dir=folder)
            os.close(fd)
            sink = SQLiteStaging(self, Path(name))
            try:
                yield sink
                sink.publish()
            finally:
                sink.discard()
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name)

    def writer_for_publish(self) -> sqlite3.Connection:
        """The writer connection, for ``SQLiteStaging.publish`` (outside a transaction)."""
        return self._conns.writer

    def close(self) -> None:
        """Finish background writes (a few seconds at most) and close every connection."""
        self._background.close(timeout=5.0)
        self._conns.close()

    # Sources -----------------------------------------------------------------------------
    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """Create or update a source found by internal id or handle.

        A source first imported without a handle (``c/<id>``) gains it when a later
        import names it; a handle already held by another source is an error.
        ``chat_type`` (the export's type name) is kept when a later call gives none.
        """
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        with self._conns.transaction() as db:
            stored = self._keyed_source(internal_id, handle)
            if stored is None:
                cur = db.execute(
                    "INSERT INTO sources (internal_id, handle, title, kind, chat_type, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (internal_id, handle, title, kind.value, chat_type, ts(datetime.now(UTC))),
                )
                source_id = int(cur.lastrowid or 0)
            else:
                self._check_rekey(title, internal_id, handle, stored)
                source_id = stored[0]
                db.execute(
                    "UPDATE sources SET title = ?, kind = ?, "
                    "internal_id = COALESCE(internal_id, ?), handle = COALESCE(handle, ?), "
                    "chat_type = COALESCE(?, chat_type) WHERE id = ?",
                    (title, kind.value, internal_id, handle, chat_type, source_id),
                )
            row = self._query(
                f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id = ?",
                (source_id,),
            )[0]
        return to_source(row)

    def lookup_source(self, *, internal_id: int | None, handle: str | None) -> Source | None:
        """The stored source with this internal id, else with this (lower-case) handle."""
        rows: list[Any] = []
        if internal_id is not None:
            rows = self._query(
                f"SELECT {SOURCE_COLUMNS} FROM sources WHERE internal_id = ?", (internal_id,)
            )
        if not rows and handle is not None:
            rows = self._query(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE handle = ?", (handle,))
        return to_source(rows[0]) if rows else None

    def list_sources(self) -> list[SourceStats]:
        """Every source with its counts, time span and last sync, by title."""
        ids = [row[0] for row in self._query("SELECT id FROM sources ORDER BY title, id")]
        return [self.source_stats(source_id) for source_id in ids]

    def source_stats(self, source_id: int) -> SourceStats:
        """One source's non-service message count, time span and last sync."""
        source = self.get_source_by_id(source_id)
        count, first, last = self._query(
            "SELECT COUNT(*), MIN(posted_at), MAX(posted_at) FROM messages "
            "WHERE source_id = ? AND is_service = 0",
            (source_id,),
        )[0]
        synced_at, watermark = self._query(
            "SELECT last_synced_at, sync_watermark FROM sources WHERE id = ?", (source_id,)
        )[0]
        return SourceStats(
            source=source,
            message_count=count,
            first_message_at=dt(first),
            last_message_at=dt(last),
            last_synced_at=dt(synced_at),
            last_synced_message_id=watermark,
            topics=tuple(self.list_topics(source_id)),
        )
