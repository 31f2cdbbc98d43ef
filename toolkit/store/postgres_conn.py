"""Connections of the PostgreSQL store: a psycopg pool and per-thread transactions.

Pooled connections run in autocommit, so a read is one round trip with no open
transaction. ``transaction()`` pins one connection to the calling thread for its
duration; every store call the thread makes inside it uses that connection, so
nested calls (an import's batches, a sync's messages and watermark) commit together.
psycopg errors are translated into ``StoreError`` here, at the edge.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from toolkit.config import redact_url
from toolkit.errors import StoreError
from toolkit.store.postgres_migrations import migrate


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
