"""Connections of the PostgreSQL store: a psycopg pool, per-thread transactions, row shapes.

Pooled connections run in autocommit, so a read is one round trip with no open
transaction. ``transaction()`` pins one connection to the calling thread for its
duration; every store call the thread makes inside it uses that connection, so
nested calls (an import's batches, a sync's messages and watermark) commit together.
psycopg errors are translated into ``StoreError`` here, at the edge.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from toolkit.config import redact_url
from toolkit.errors import StoreError
from toolkit.models import ApiKeyRecord, Message, Source, SourceKind
from toolkit.store.postgres_migrations import migrate

MSG_COLUMNS = (
    "source_id, message_id, posted_at, edited_at, sender_peer_id, sender_name, text, "
    "reply_to, is_service, media, forwarded_from, topic_id"
)
SOURCE_COLUMNS = "id, internal_id, handle, title, kind, chat_type"
KEY_COLUMNS = "id, name, prefix, key_hash, scopes, created_at, revoked_at, last_used_at"


def ts(value: datetime | None) -> int | None:
    """Unix seconds of a datetime (``None`` stays ``None``)."""
    return None if value is None else int(value.timestamp())


def dt(value: int | None) -> datetime | None:
    """A UTC datetime from Unix seconds (``None`` stays ``None``)."""
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def message_row(row: Sequence[Any]) -> Message:
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


def source_row(row: Sequence[Any]) -> Source:
    """A ``Source`` from a row of ``SOURCE_COLUMNS``."""
    return Source(
        id=row[0],
        internal_id=row[1],
        handle=row[2],
        title=row[3],
        kind=SourceKind(row[4]),
        chat_type=row[5],
    )


def key_row(row: Sequence[Any]) -> ApiKeyRecord:
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


def filters(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    include_service: bool = False,
    with_text_only: bool = False,
    until_inclusive: bool = False,
    topic_id: int | None = None,
    sender_peer_ids: Sequence[str] | None = None,
) -> tuple[str, list[Any]]:
    """`` AND ...`` clauses and their parameters for the message readers.

    Stored times are whole seconds: a bound with a fraction is rounded so that
    ``posted_at >= 12:03:00.5`` does not take a message of 12:03:00 (as in SQLite).
    ``sender_peer_ids=[]`` matches nothing; ``None`` does not filter.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if topic_id is not None:
        clauses.append("topic_id = %s")
        params.append(int(topic_id))
    if sender_peer_ids is not None:
        clauses.append("sender_peer_id = ANY(%s)")
        params.append(list(dict.fromkeys(sender_peer_ids)))
    if since is not None:
        clauses.append("posted_at >= %s")
        params.append(math.ceil(since.timestamp()))
    if until is not None:
        clauses.append("posted_at <= %s" if until_inclusive else "posted_at < %s")
        bound = until.timestamp()
        params.append(math.floor(bound) if until_inclusive else math.ceil(bound))
    if not include_service:
        clauses.append("NOT is_service")
    if with_text_only:
        clauses.append("text != ''")
    return "".join(f" AND {c}" for c in clauses), params


class PgConnections:
    """A connection pool with per-thread transactions.

    Args:
        url: ``postgresql://user:password@host:port/database``.
        pool_size: most connections this process opens.
        connect_timeout: seconds to wait for the first connection.
    """

    def __init__(self, url: str, *, pool_size: int = 8, connect_timeout: float = 10.0) -> None:
        self.url = url
        self.label = redact_url(url)
        self._local = threading.local()
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True, "application_name": "mlens"},
            open=False,
            name="mlens",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
            with self._pool.connection() as conn:
                migrate(conn)
        except (PoolTimeout, psycopg.Error) as exc:
            self._pool.close()
            raise StoreError(f"cannot open the store at {self.label}: {exc}") from exc

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; nested calls (in the same thread) join the outer one."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        try:
            with self._pool.connection() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        yield
                finally:
                    self._local.conn = None
        except (PoolTimeout, psycopg.Error) as exc:
            raise StoreError(f"store write failed on {self.label}: {exc}") from exc

    @contextmanager
    def dedicated(self) -> Iterator[psycopg.Connection]:
        """A pooled connection for one caller's own use (an import's staging session)."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except (PoolTimeout, psycopg.Error) as exc:
            raise StoreError(f"store write failed on {self.label}: {exc}") from exc

    @contextmanager
    def transaction_on(self, conn: psycopg.Connection) -> Iterator[None]:
        """A transaction on ``conn`` that this thread's store calls join (a publish)."""
        outer = getattr(self._local, "conn", None)
        self._local.conn = conn
        try:
            with conn.transaction():
                yield
        except psycopg.Error as exc:
            raise StoreError(f"store write failed on {self.label}: {exc}") from exc
        finally:
            self._local.conn = outer

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """The thread's transaction connection, or a pooled one for one call."""
        pinned = getattr(self._local, "conn", None)
        if pinned is not None:
            yield pinned
            return
        try:
            with self._pool.connection() as conn:
                yield conn
        except (PoolTimeout, psycopg.Error) as exc:
            raise StoreError(f"store query failed on {self.label}: {exc}") from exc

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; its rows (empty for statements that return none).

        Outside a transaction, a statement whose connection turns out dead (the server
        restarted since the pool opened it) is run once more on a fresh connection;
        the pool drops the dead one when it comes back broken.
        """
        retry = getattr(self._local, "conn", None) is None
        while True:
            with self.connection() as conn:
                try:
                    cur = conn.execute(sql, params)  # type: ignore[arg-type]
                    return cur.fetchall() if cur.description else []
                except psycopg.OperationalError as exc:
                    if not (retry and conn.closed):
                        raise StoreError(f"store query failed on {self.label}: {exc}") from exc
                except psycopg.Error as exc:
                    raise StoreError(f"store query failed on {self.label}: {exc}") from exc
            retry = False
