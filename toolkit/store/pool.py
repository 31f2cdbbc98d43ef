"""A pool of database connections: opened on demand up to a bound, reused, dropped when dead.

One class for every backend: SQLite's single writer is a pool of one (callers queue
for it), its readers a pool without a bound; PostgreSQL's connections are one pool of
``pool_size``. A connection comes back with no transaction open (a failed one is rolled
back); one that died (``broken``) is closed and forgotten, and the next caller gets a
new one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from toolkit.errors import StoreError
from toolkit.store.dialect import Connection


class Pool:
    """Connections of one kind.

    Args:
        connect: opens a connection.
        size: most connections open at once (``None``: no bound).
        wait_s: how long ``take`` waits for a connection when all are in use.
        broken: whether a connection died.
        label: the database, for messages.
    """

    def __init__(
        self,
        connect: Callable[[], Connection],
        *,
        size: int | None,
        wait_s: float,
        broken: Callable[[Connection], bool],
        label: str,
    ) -> None:
        self._connect = connect
        self._size = size
        self._wait_s = wait_s
        self._broken = broken
        self._label = label
        self._idle: list[Connection] = []
        self._open: list[Connection] = []
        self._opening = 0
        self._closed = False
        self._cond = threading.Condition()

    @contextlib.contextmanager
    def take(self) -> Iterator[Connection]:
        """A connection of the caller's own until the block ends."""
        conn = self._checkout()
        try:
            yield conn
        finally:
            self._checkin(conn)

    def discard(self, conn: Connection) -> None:
        """Close ``conn`` (taken from this pool, dead) so that it is never handed out again."""
        with self._cond:
            if conn in self._open:
                self._open.remove(conn)
            self._cond.notify()
        with contextlib.suppress(Exception):
            conn.close()

    def drop_idle(self) -> None:
        """Close every idle connection (one died with its server: they were opened
        before it went away too)."""
        with self._cond:
            idle, self._idle = self._idle, []
            for conn in idle:
                self._open.remove(conn)
            self._cond.notify_all()
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()

    def close(self) -> None:
        """Close every connection, idle or in use."""
        with self._cond:
            self._closed = True
            opened, self._open, self._idle = self._open, [], []
        for conn in opened:
            with contextlib.suppress(Exception):
                conn.close()

    def _checkout(self) -> Connection:
        deadline = time.monotonic() + self._wait_s
        with self._cond:
            while True:
                if self._closed:
                    raise StoreError(f"the store at {self._label} is closed")
                while self._idle:
                    conn = self._idle.pop()
                    if not self._broken(conn):
                        return conn
                    self._open.remove(conn)
                    with contextlib.suppress(Exception):
                        conn.close()
                if self._size is None or len(self._open) + self._opening < self._size:
                    self._opening += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreError(
                        f"no free connection to {self._label} within {self._wait_s:.0f} s"
                    )
                self._cond.wait(left)
        try:
            conn = self._connect()
        finally:
            with self._cond:
                self._opening -= 1
                self._cond.notify()
        with self._cond:
            self._open.append(conn)
        return conn

    def _checkin(self, conn: Connection) -> None:
        if self._broken(conn):
            self.discard(conn)
            return
        try:
            conn.rollback()  # a no-op unless a failed statement left a transaction open
        except Exception:
            self.discard(conn)
            return
        with self._cond:
            if conn in self._open:  # else the pool was closed meanwhile (and closed it)
                self._idle.append(conn)
            self._cond.notify()
