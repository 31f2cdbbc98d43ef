"""The PostgreSQL ``MessageStore``: what a team runs when one process and one file are not enough.

Selected by ``MLENS_DATABASE_URL=postgresql://…`` (``toolkit.store.open_store``). Same
behaviour as the SQLite store (the store test suite runs against both): times in Unix
seconds, vectors as float32 bytes scored in numpy, the summary cache, API keys and
sync watermarks, plus the token buckets that service replicas share
(``take_rate_token``). Connections come from a psycopg pool; see ``postgres_conn``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Unpack

from toolkit.models import (
    Message,
    Source,
    SourceStats,
    UpsertResult,
)
from toolkit.store.background import BackgroundWriter, BackgroundWrites
from toolkit.store.base import ImportSink
from toolkit.store.postgres_conn import PgConnections
from toolkit.store.postgres_import import publish_messages
from toolkit.store.postgres_messages import PgMessages
from toolkit.store.postgres_records import PgRecords
from toolkit.store.postgres_staging import PgStaging
from toolkit.store.reads import SourceLookups
from toolkit.store.rows import SOURCE_COLUMNS, SourceFields, dt, source_keys, to_source, ts

# pg_advisory_xact_lock key of imports ("mlens-im" in ASCII).
_IMPORT_LOCK = 0x6D6C656E732D696D


class PostgresStore(PgMessages, PgRecords, BackgroundWrites, SourceLookups):
    """PostgreSQL implementation of ``MessageStore``.

    Args:
        url: ``postgresql://user:password@host:port/database`` (created tables are migrated).
        pool_size: most connections this process keeps open.
        connect_timeout: seconds to wait for the server when opening.
    """

    def __init__(self, url: str, *, pool_size: int = 8, connect_timeout: float = 10.0) -> None:
        self.pg = PgConnections(url, pool_size=pool_size, connect_timeout=connect_timeout)
        self.database = self.pg.label
        self._background = BackgroundWriter("store-writer:postgres")

    # Transactions ------------------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction; nested calls in the same thread join the outer one."""
        return self.pg.transaction()

    @contextlib.contextmanager
    def staging(self, *, on_wait: Callable[[str], None] | None = None) -> Iterator[ImportSink]:
        """An import's sink: messages are COPYed into the import's own staging table while
        the file is read, and land in one short transaction at the end, or not at all
        (``postgres_staging``). Imports take turns on an advisory lock, across every
        process on the database.
        """
        with self.pg.dedicated() as conn:
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (_IMPORT_LOCK,)).fetchone()
            if not (row and row[0]):
                if on_wait is not None:
                    on_wait("waiting for another import to finish…")
                conn.execute("SELECT pg_advisory_lock(%s)", (_IMPORT_LOCK,))
            try:
                sink = PgStaging(self, conn)
                try:
                    yield sink
                    sink.publish()
                finally:
                    sink.discard()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_IMPORT_LOCK,))

    def close(self) -> None:
        """Finish background writes (a few seconds at most) and close the connection pool."""
        self._background.close(timeout=5.0)
        self.pg.close()

    # Sources -----------------------------------------------------------------------------
    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """Create or update a source found by internal id or handle (rules as in SQLite).

        ``chat_type`` (the export's type name) is kept when a later call gives none.
        """
        return self.upsert_source_as(**fields)

    def upsert_source_as(
        self, *, new_id: int | None = None, **fields: Unpack[SourceFields]
    ) -> Source:
        """``upsert_source``; a source created now takes ``new_id`` when given (an id a
        staged import drew from the sequence)."""
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        q = self.pg.query
        with self.transaction():
            # Two importers of one new source must not both insert it.
            q("LOCK TABLE sources IN SHARE ROW EXCLUSIVE MODE")
            stored = self._keyed_source(internal_id, handle)
            if stored is None:
                source_id = q(
                    "INSERT INTO sources "
                    "(id, internal_id, handle, title, kind, chat_type, created_at) VALUES "
                    "(COALESCE(%s, nextval(pg_get_serial_sequence('sources', 'id'))), "
                    "%s, %s, %s, %s, %s, %s) RETURNING id",
                    (
                        new_id,
                        internal_id,
                        handle,
                        title,
                        kind.value,
                        chat_type,
                        ts(datetime.now(UTC)),
                    ),
                )[0][0]
            else:
                self._check_rekey(title, internal_id, handle, stored)
                source_id = stored[0]
                q(
                    "UPDATE sources SET title = %s, kind = %s, "
                    "internal_id = COALESCE(internal_id, %s), handle = COALESCE(handle, %s), "
                    "chat_type = COALESCE(%s, chat_type) WHERE id = %s",
                    (title, kind.value, internal_id, handle, chat_type, source_id),
                )
            row = q(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id = %s", (source_id,))[0]
        return to_source(row)

    def list_sources(self) -> list[SourceStats]:
        """Every source with its counts, time span and last sync, by title."""
        ids = [row[0] for row in self.pg.query("SELECT id FROM sources ORDER BY title, id")]
        return [self.source_stats(source_id) for source_id in ids]

    def source_stats(self, source_id: int) -> SourceStats:
        """One source's non-service message count, time span and last sync."""
        source = self.get_source_by_id(source_id)
        count, first, last, synced_at, watermark = self.pg.query(
            "SELECT (SELECT COUNT(*) FROM messages WHERE source_id = s.id AND NOT is_service), "
            "(SELECT MIN(posted_at) FROM messages WHERE source_id = s.id AND NOT is_service), "
            "(SELECT MAX(posted_at) FROM messages WHERE source_id = s.id AND NOT is_service), "
            "last_synced_at, sync_watermark FROM sources s WHERE id = %s",
            (source_id,),
        )[0]
        return SourceStats(
            source=source,
            message_count=int(count),
            first_message_at=dt(first),
            last_message_at=dt(last),
            last_synced_at=dt(synced_at),
            last_synced_message_id=watermark,
            topics=tuple(self.list_topics(source_id)),
        )

    # Messages ----------------------------------------------------------------------------
    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Insert new messages; replace a stored one only by a newer or equal edit.

        Rows travel by COPY into a staging table and are published by one statement,
        inside one transaction (the caller's, when there is one).
        """
        with self.transaction(), self.pg.connection() as conn:
            return publish_messages(conn, messages)

    # Sync watermark ----------------------------------------------------------------------
    def get_watermark(self, source_id: int) -> int | None:
        """The highest message id a live sync has committed for a source."""
        rows = self.pg.query("SELECT sync_watermark FROM sources WHERE id = %s", (source_id,))
        return rows[0][0] if rows else None

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        """Record sync progress; the watermark never moves backwards."""
        self.pg.query(
            "UPDATE sources SET sync_watermark = GREATEST(COALESCE(sync_watermark, 0), %s), "
            "last_synced_at = %s WHERE id = %s",
            (message_id, ts(synced_at), source_id),
        )
