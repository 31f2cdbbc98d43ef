"""SQLite connections of one store: one writer, a pool of read connections, a turn lock.

- **Writer**: one connection, behind a re-entrant lock, used only inside
  ``transaction()`` (``BEGIN IMMEDIATE``). A write waits its turn behind another
  process's write for up to ``write_wait_s`` instead of failing with
  ``database is locked``.
- **Readers**: in WAL mode a reader sees the last committed state and never waits for
  the writer, so every read takes a connection from a pool (one per concurrent
  reader, opened on demand, ``query_only``: a read path cannot write). A read inside
  the calling thread's own transaction uses the writer, so it sees that transaction's
  rows. An in-memory database (tests) has only the writer.
- **Import turn**: a lock file next to the database (``flock``), so that imports
  into one store, from any number of processes, run one after another.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from toolkit.errors import StoreError
from toolkit.store.files import FILE_MODE, private_file

OnWait = Callable[[str], None]
WAITING = "waiting for another import to finish…"


class Connections:
    """The writer, the read pool and the import turn of one SQLite database.

    Args:
        database: a file path, or ``":memory:"``.
        busy_timeout_ms: how long one statement waits for a lock before retrying.
        write_wait_s: how long a write transaction waits for its turn in all.
    """

    def __init__(self, database: str, *, busy_timeout_ms: int, write_wait_s: float) -> None:
        self.database = database
        self.memory = database == ":memory:"
        self.busy_timeout_ms = busy_timeout_ms
        self.write_wait_s = write_wait_s
        if not self.memory:
            private_file(database)
        self.writer = self._connect()
        if not self.memory:
            self._wal()
            self.writer.execute("PRAGMA synchronous = NORMAL")
            # After a big import is checkpointed, the WAL file shrinks back to 64 MiB.
            self.writer.execute(f"PRAGMA journal_size_limit = {64 * 1024 * 1024}")
        self.write_lock = threading.RLock()
        self.depth = 0
        self._owner: int | None = None
        self._pool: list[sqlite3.Connection] = []
        self._opened: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._turn = threading.Lock()

    def _wal(self) -> None:
        """Switch the file to WAL. The switch needs the file to itself and does not wait
        for it like other statements, so a process opening the store while another one
        does (the workers of ``mlens serve --workers N``) tries again for a while."""
        deadline = time.monotonic() + self.write_wait_s
        while True:
            try:
                self.writer.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _connect(self, *, read_only: bool = False) -> sqlite3.Connection:
        db = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        db.execute("PRAGMA foreign_keys = ON")
        if read_only:
            db.execute("PRAGMA query_only = ON")
        return db

    @property
    def in_own_transaction(self) -> bool:
        """Whether the calling thread is inside its own write transaction."""
        return self.depth > 0 and self._owner == threading.get_ident()

    @contextlib.contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A connection to read with (the writer inside the caller's own transaction)."""
        if self.memory or self.in_own_transaction:
            with self.write_lock:
                yield self.writer
            return
        with self._pool_lock:
            db = self._pool.pop() if self._pool else None
        if db is None:
            try:
                db = self._connect(read_only=True)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the store at {self.database}: {exc}") from exc
            with self._pool_lock:
                self._opened.append(db)
        try:
            yield db
        finally:
            if db.in_transaction:  # a failed statement inside an explicit read
                db.execute("ROLLBACK")
            with self._pool_lock:
                self._pool.append(db)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the writer; nested calls join the outer one."""
        with self.write_lock:
            if self.depth:
                self.depth += 1
                try:
                    yield self.writer
                finally:
                    self.depth -= 1
                return
            self._begin()
            self.depth, self._owner = 1, threading.get_ident()
            try:
                yield self.writer
            except BaseException:
                self.depth, self._owner = 0, None
                self._rollback()
                raise
            self.depth, self._owner = 0, None
            try:
                self.writer.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreError(f"cannot commit to {self.database}: {exc}") from exc

    def _begin(self) -> None:
        # busy_timeout bounds one attempt; writers of other processes (an import
        # publishing, a sync batch) are waited out for up to write_wait_s in all.
        deadline = time.monotonic() + self.write_wait_s
        while True:
            try:
                self.writer.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise StoreError(f"cannot start a write on {self.database}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreError(
                        f"cannot start a write on {self.database}: another writer held it "
                        f"for more than {self.write_wait_s:.0f} s"
                    ) from exc
            except sqlite3.Error as exc:
                raise StoreError(f"cannot start a write on {self.database}: {exc}") from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back by itself (e.g. after SQLITE_FULL).
        if self.writer.in_transaction:
            self.writer.execute("ROLLBACK")

    @contextlib.contextmanager
    def import_turn(self, on_wait: OnWait | None = None) -> Iterator[None]:
        """Hold this store's import turn: other imports (threads or processes) wait."""
        told = False

        def wait() -> None:
            nonlocal told
            if on_wait is not None and not told:
                on_wait(WAITING)
            told = True

        if not self._turn.acquire(blocking=False):
            wait()
            self._turn.acquire()
        try:
            if self.memory:
                yield
                return
            fd = os.open(f"{self.database}.import-lock", os.O_CREAT | os.O_RDWR, FILE_MODE)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    wait()
                    fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the lock
        finally:
            self._turn.release()

    def close(self) -> None:
        """Close the writer and every read connection."""
        with self._pool_lock:
            for db in self._opened:
                db.close()
            self._opened.clear()
            self._pool.clear()
        with self.write_lock:
            self.writer.close()


class ConnectionsUser:
    """Base of the SQLite store's parts: ``_conns`` and a read helper over it."""

    _conns: Connections

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        with self._conns.reader() as db:
            return db.execute(sql, tuple(params)).fetchall()
