"""Statements that wait too long for their server: a ``Watchdog`` per database.

A server whose processes are stopped (``SIGSTOP``, a frozen VM) still has a kernel
that accepts and acknowledges everything, so neither TCP keepalives nor
``tcp_user_timeout`` ever notice: a statement sent to it waits for ever. The store
bounds it from the client side, in two ways:

- **An answer deadline** (``answer_s``): a statement that has run half of it makes the
  watchdog ask the server something cheap on a fresh connection (``probe``), bounded
  by the other half. A server that answers is alive (a long statement is simply long:
  it goes on, asked about again every half ``answer_s``); one that does not is taken as
  gone, and every statement waiting for it is ended at once (``abort``: the connection's
  socket is shut down, so the driver's wait returns with an error, and the connection
  is dropped). The caller gets a ``StoreTimeout`` within about ``answer_s``.
- **A statement deadline** (``deadline_s``, for statements of the request path; an
  import's or a migration's session has none): past it the statement is cancelled
  (``cancel``, the server's own cancel request), and ended like an unanswered one if
  the cancel has not ended it within ``answer_s``.

One daemon thread per watchdog, started with the first statement watched; it sleeps
while none is in flight.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from toolkit.errors import StoreTimeout

_TICK = 0.05
"""How often (seconds) the watchdog looks at the statements in flight."""


@dataclass(eq=False)
class _Watched:
    conn: Any
    bounded: bool
    started: float
    asked: float
    """When the server was last known to be alive for this statement."""
    cancelled: float | None = None
    verdict: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(eq=False)
class Watchdog:
    """Watches the statements in flight on one database.

    Args:
        label: the database, for messages (never with a password).
        answer_s: seconds a statement may wait for a server that does not answer a probe.
        deadline_s: seconds a bounded statement may run at all (``None``: no bound).
        probe: asks the server something cheap within the seconds given; whether it answered.
        cancel: asks the server to cancel the statement running on a connection.
        abort: ends the wait of a statement on a connection at once (the connection is
            unusable afterwards).
    """

    label: str
    _: KW_ONLY
    answer_s: float
    deadline_s: float | None
    probe: Callable[[float], bool]
    cancel: Callable[[Any], None]
    abort: Callable[[Any], None]
    _watched: set[_Watched] = field(default_factory=set, init=False, repr=False)
    _cond: threading.Condition = field(default_factory=threading.Condition, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _closed: bool = field(default=False, init=False, repr=False)

    @contextlib.contextmanager
    def watch(self, conn: Any, *, bounded: bool = True) -> Iterator[None]:
        """Watch the statement the block runs on ``conn``.

        Raises:
            StoreTimeout: the block failed because the watchdog ended the statement
                (the server did not answer, or the statement passed its deadline).
        """
        now = time.monotonic()
        entry = _Watched(conn, bounded and self.deadline_s is not None, now, now)
        with self._cond:
            self._watched.add(entry)
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name=f"store-watchdog:{self.label}"
                )
                self._thread.start()
            self._cond.notify_all()
        try:
            yield
        except Exception as exc:
            if entry.verdict is not None:
                raise StoreTimeout(entry.verdict) from exc
            raise
        finally:
            with entry.lock, self._cond:  # a cancel in progress finishes first
                self._watched.discard(entry)

    def close(self) -> None:
        """Stop the watchdog's thread (statements still in flight are no longer watched)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self.answer_s + 1)

    # The watchdog's thread ---------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._watched and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                self._cond.wait(_TICK)
                entries = list(self._watched)
            now = time.monotonic()
            half = self.answer_s / 2
            if any(now - e.asked >= half for e in entries):
                self._ask([e for e in entries if now - e.asked >= half], now, half)
            for entry in entries:
                if entry.bounded and self.deadline_s is not None:
                    self._deadline(entry, time.monotonic(), self.deadline_s)

    def _ask(self, waiting: list[_Watched], now: float, budget: float) -> None:
        """Probe the server for statements waiting half the answer time; end them all
        when it does not answer."""
        try:
            alive = self.probe(budget)
        except Exception:  # a probe that fails in any way is a server that did not answer
            alive = False
        if alive:
            for entry in waiting:
                entry.asked = now
            return
        verdict = f"the database at {self.label} did not answer within {self.answer_s:g} s"
        for entry in waiting:
            self._end(entry, verdict)

    def _deadline(self, entry: _Watched, now: float, deadline_s: float) -> None:
        if now - entry.started < deadline_s or entry.verdict is not None:
            return
        if entry.cancelled is None:
            entry.cancelled = now
            with entry.lock:  # the statement's block cannot end while its cancel is sent
                with self._cond:
                    if entry not in self._watched:
                        return
                entry.verdict = (
                    f"a statement on {self.label} ran past its {deadline_s:g} s deadline"
                )
                with contextlib.suppress(Exception):
                    self.cancel(entry.conn)
        elif now - entry.cancelled >= self.answer_s:
            self._end(entry, entry.verdict or "cancelled")

    def _end(self, entry: _Watched, verdict: str) -> None:
        """Abort ``entry``'s statement, unless it has finished meanwhile."""
        with entry.lock, self._cond:
            if entry not in self._watched:
                return
            entry.verdict = entry.verdict or verdict
            with contextlib.suppress(Exception):
                self.abort(entry.conn)
