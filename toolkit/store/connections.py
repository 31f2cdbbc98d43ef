"""The store's connections: statements, transactions and errors, over a dialect's pools.

- **Reads** run on a reader: in SQLite a read-only connection of its own pool, which
  never waits for the writer (WAL); in PostgreSQL any pooled connection (autocommit).
- **Transactions** pin a writer to the calling thread: every store call the thread
  makes inside uses it, so nested calls (an import's batches, a sync's messages and
  watermark) commit together. A write waits its turn behind other processes' writers
  (the dialect's ``busy`` errors) for up to ``wait_s`` instead of failing.
- **Lone writes** (outside a transaction) are one statement where the dialect allows
  it (PostgreSQL), else a transaction of their own (SQLite, ``BEGIN IMMEDIATE``).
- A statement outside a transaction whose connection died (the server restarted) is
  run once more on a fresh one.
- **A dedicated connection** (``dedicated``) is an import's own session: its staging
  tables live there, and its publish is a transaction on it.
- Driver errors become ``StoreError`` here, at the edge; one that says the database
  file is corrupted becomes ``StoreDamaged``, and the first of those is logged once, in
  one line naming the file and the recovery step. The store stays marked damaged (its
  health check fails) until an integrity check of the whole file passes.
- **Health** (``check``): a cheap question to the database on a pooled connection.
- **Deadlines**: every statement runs under the dialect's ``watch`` (PostgreSQL: a
  server that stops answering ends it within the store's answer time, and a statement
  of the request path has a deadline; ``watchdog.py``); a statement so ended is a
  ``StoreTimeout``, never run again. An import's session and a migration's have no
  statement deadline (``long``): they may run as long as their data needs.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from toolkit.errors import StoreDamaged, StoreError, StoreTimeout
from toolkit.store.dialect import Connection, Dialect, Params, rewrite
from toolkit.store.pool import Pool

log = logging.getLogger("toolkit.store")


def one_line(exc: BaseException) -> str:
    """A driver's error message on one line (libpq's run over several)."""
    return " ".join(str(exc).split())


class Connections:
    """The pools, the per-thread transactions and the statements of one store."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.label = dialect.label
        self.writers = self._pool(read_only=False, size=dialect.pool_size)
        self.readers = self._pool(read_only=True, size=None) if dialect.readers_apart else None
        self._local = threading.local()
        self.damage: str | None = None
        """Why the database file is known to be corrupted (``None``: not known to be)."""

    def failed(self, what: str, exc: Exception) -> StoreError:
        """The ``StoreError`` for the driver's error ``exc`` during ``what``
        (``StoreDamaged`` for a corrupted file, logged the first time)."""
        message = f"store {what} failed on {self.label}: {one_line(exc)}"
        if not self.dialect.damaged(exc):
            return StoreError(message)
        if self.damage is None:
            log.error(self.dialect.recovery(exc))
        self.damage = str(exc)
        return StoreDamaged(message)

    def check(self, budget_s: float) -> None:
        """Ask the database something cheap (an integrity check where it fits in
        ``budget_s``); ``StoreError`` when it cannot answer, ``StoreDamaged`` while it is
        known to be corrupted."""
        pool = self.readers or self.writers
        try:
            with pool.take() as conn:
                try:
                    with self.dialect.watch(conn, bounded=True):
                        whole = self.dialect.health_check(conn, budget_s)
                except self.dialect.errors as exc:
                    raise self.failed("health check", exc) from exc
        except StoreError:
            pool.drop_idle()  # a server that went away: open fresh ones next time
            raise
        if whole:
            self.damage = None
        elif self.damage is not None:
            raise StoreDamaged(f"the store at {self.label} is damaged: {self.damage}")

    def _pool(self, *, read_only: bool, size: int | None) -> Pool:
        d = self.dialect
        opener = partial(self._connect, read_only=read_only)
        return Pool(opener, size=size, wait_s=d.wait_s, broken=d.broken, label=d.label)

    def _connect(self, *, read_only: bool = False) -> Connection:
        try:
            return self.dialect.connect(read_only=read_only)
        except self.dialect.errors as exc:
            if self.dialect.damaged(exc):
                raise self.failed("connect", exc) from exc
            raise StoreError(f"cannot connect to {self.label}: {one_line(exc)}") from exc

    # Statements ----------------------------------------------------------------------------
    def read(self, sql: str, params: Params = ()) -> list[Any]:
        """The rows of one statement that writes nothing (committed data, or the calling
        thread's own transaction)."""
        return self._statement(self.readers or self.writers, sql, params, "query")

    def write(self, sql: str, params: Params = ()) -> list[Any]:
        """Run one writing statement (in the thread's transaction when it has one); its
        rows (``RETURNING``)."""
        if self.in_transaction or not self.dialect.lone_writes:
            with self.transaction() as conn:
                return self._run(conn, sql, params, "write")
        return self._statement(self.writers, sql, params, "write")

    def insert(
        self, table: str, columns: str, rows: Sequence[Sequence[Any]], tail: str = ""
    ) -> None:
        """Insert ``rows`` of ``columns`` into ``table`` in bulk (the dialect's way: many
        rows per statement, or COPY), in one transaction; ``tail``: ``ON CONFLICT ...``."""
        if not rows:
            return
        with self.transaction() as conn:
            try:
                with self.watched(conn):
                    self.dialect.insert(conn, table, columns, rows, tail)
            except self.dialect.errors as exc:
                raise self.failed("write", exc) from exc

    def _run(self, conn: Connection, sql: str, params: Params, what: str) -> list[Any]:
        if not isinstance(params, Mapping):
            sql = rewrite(sql, self.dialect.mark)
        try:
            with self.watched(conn):
                cur = conn.execute(sql, params)
                return cur.fetchall() if cur.description else []
        except self.dialect.errors as exc:
            raise self.failed(what, exc) from exc

    def watched(self, conn: Connection) -> contextlib.AbstractContextManager[None]:
        """The dialect's watch over one statement on ``conn``: with a deadline unless
        the calling thread's session is ``long`` (an import's, a migration's)."""
        return self.dialect.watch(conn, bounded=not self.long)

    @property
    def long(self) -> bool:
        """Whether the calling thread works in a session without statement deadlines."""
        return bool(getattr(self._local, "long", False))

    def _statement(self, pool: Pool, sql: str, params: Params, what: str) -> list[Any]:
        pinned = self.pinned
        if pinned is not None:
            return self._run(pinned, sql, params, what)
        for retry in (True, False):
            with pool.take() as conn:
                try:
                    return self._run(conn, sql, params, what)
                except StoreTimeout:
                    raise  # the server did not answer: asking again would wait again
                except StoreError:
                    if not (retry and self.dialect.broken(conn)):
                        raise
                    pool.drop_idle()  # opened before the server went away, like this one
        raise AssertionError("unreachable")

    # Transactions --------------------------------------------------------------------------
    @property
    def pinned(self) -> Connection | None:
        """The calling thread's own connection (in a transaction, or dedicated), if any."""
        conn: Connection | None = getattr(self._local, "conn", None)
        return conn

    @property
    def in_transaction(self) -> bool:
        """Whether the calling thread is inside a transaction of this store."""
        return bool(getattr(self._local, "depth", 0))

    @contextlib.contextmanager
    def transaction(self, *, begin: str | None = None) -> Iterator[Connection]:
        """One transaction on the thread's writer; nested calls join the outer one.

        ``begin``: the statement that opens it (default ``dialect.begin``); ``"BEGIN"``
        for one that writes only an import's staging tables and must lock nothing else.
        """
        local = self._local
        if self.in_transaction:
            local.depth += 1
            try:
                yield local.conn
            finally:
                local.depth -= 1
            return
        with self._pin_begun(begin or self.dialect.begin) as conn:
            local.depth = 1
            try:
                yield conn
            except BaseException:
                local.depth = 0
                with contextlib.suppress(*self.dialect.errors):
                    conn.rollback()
                raise
            local.depth = 0
            try:
                with self.watched(conn):
                    conn.execute("COMMIT")
            except self.dialect.errors as exc:
                with contextlib.suppress(*self.dialect.errors):
                    conn.rollback()
                raise StoreError(f"cannot commit to {self.label}: {exc}") from exc

    @contextlib.contextmanager
    def _pin_begun(self, begin: str) -> Iterator[Connection]:
        """``_pin`` with ``begin`` run; a pooled connection that died with its server is
        replaced once by a fresh one (the idle ones are dropped with it)."""
        fresh = self.pinned is None
        for retry in (fresh, False):
            with self._pin() as conn:
                try:
                    self._begin(conn, begin)
                except StoreTimeout:
                    raise
                except StoreError:
                    if retry and self.dialect.broken(conn):
                        self.writers.drop_idle()
                        continue
                    raise
                yield conn
                return

    @contextlib.contextmanager
    def _pin(self) -> Iterator[Connection]:
        """The thread's pinned connection, else a writer pinned for the block."""
        if self.pinned is not None:
            yield self.pinned
            return
        with self.writers.take() as conn:
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = None

    def _begin(self, conn: Connection, begin: str) -> None:
        # The driver's own wait (SQLite's busy_timeout) bounds one attempt; writers of
        # other processes (an import publishing, a sync batch) are waited out for up to
        # wait_s in all.
        deadline = time.monotonic() + self.dialect.wait_s
        while True:
            try:
                with self.watched(conn):
                    conn.execute(begin)
                return
            except self.dialect.errors as exc:
                busy = any(word in str(exc) for word in self.dialect.busy)
                if not busy:
                    raise StoreError(f"cannot start a write on {self.label}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreError(
                        f"cannot start a write on {self.label}: another writer held it "
                        f"for more than {self.dialect.wait_s:.0f} s"
                    ) from exc

    # Sessions ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def held(self) -> Iterator[Connection]:
        """A writer pinned to the calling thread for the block, no transaction open
        (migrations: a session lock, then one transaction per migration)."""
        with self._pin() as conn, self._long(conn):
            yield conn

    @contextlib.contextmanager
    def _long(self, conn: Connection) -> Iterator[None]:
        """The block's statements on the calling thread have no deadline (on ``conn``,
        nor on the server: ``dialect.unbounded``)."""
        before = self.long
        self._local.long = True
        try:
            with self.dialect.unbounded(conn):
                yield
        finally:
            self._local.long = before

    @contextlib.contextmanager
    def dedicated(self) -> Iterator[Connection]:
        """A connection of the caller's own, pinned to its thread for the block (an
        import's session); the writer itself when one connection is the whole database."""
        if self.pinned is not None:
            raise StoreError("an import cannot run inside another write transaction")
        try:
            if self.dialect.one_connection:
                with self.held() as conn:
                    yield conn
                return
            conn = self._connect()
            self._local.conn = conn
            try:
                with self._long(conn):
                    yield conn
            finally:
                self._local.conn = None
                with contextlib.suppress(*self.dialect.errors):
                    conn.close()
        except self.dialect.errors as exc:
            raise StoreError(f"store import failed on {self.label}: {exc}") from exc

    def close(self) -> None:
        """Close every connection."""
        if self.readers is not None:
            self.readers.close()
        self.writers.close()
        self.dialect.close()


class UsesConnections:
    """Base of the store's parts: its connections and the dialect they speak."""

    connections: Connections
    dialect: Dialect
