"""Turns for CPU-bound work: at most N calls compute at once; the others wait.

A search is Python and numpy work under the GIL, broken by short calls that release
it (SQLite steps, some numpy kernels). With 40 searches running in 40 service threads,
each release hands the GIL to another thread and the search then waits up to the
interpreter's switch interval (5 ms) to get it back, and so does the event loop that
reads requests and writes answers. One service process with 40 clients answered
157–172 searches/s that way, and 294–306 when its searches took turns one at a time
(SQLite; PostgreSQL 214 against 285). More cores are for more processes
(``mlens serve --workers N``), not more threads. ``python -m benchmarks.bench_load``
measures both.

A call waiting for its turn stops waiting when its deadline (``toolkit.deadline``)
passes, with ``DeadlineExceeded``. A call may also bound its wait (``turn(wait=…)``):
summaries take turns this way (``MLENS_SUMMARY_CONCURRENCY``, the Workspace's
``summary_turns``), and a summary that gets no turn within ``MLENS_SUMMARY_WAIT_SECONDS``
fails with ``Busy``, whose ``retry_after`` is how long a turn has lately been held
(the service answers 503 + ``Retry-After``), instead of holding a worker thread while
a queue of LLM requests drains.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from toolkit import deadline
from toolkit.errors import Busy

# Weight of the newest hold time in ``Turns.held_seconds`` (an exponential average).
_SMOOTHING = 0.3


class Turns:
    """At most ``slots`` holders at once.

    Args:
        slots: how many calls may compute together (>= 1).
        what: what the holders do, for ``Busy``'s message ("summaries").
    """

    def __init__(self, slots: int, *, what: str = "calls") -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, not {slots}")
        self.slots = slots
        self.what = what
        self._free = threading.BoundedSemaphore(slots)
        self._held: float | None = None
        self._held_lock = threading.Lock()
        self._holders = 0

    @property
    def in_use(self) -> bool:
        """Whether a call holds a turn now (background work waits while one does)."""
        return self._holders > 0

    @property
    def held_seconds(self) -> float | None:
        """How long a turn has lately been held (an exponential average), ``None`` before
        the first turn ends."""
        return self._held

    def _record(self, seconds: float) -> None:
        with self._held_lock:
            last = self._held
            self._held = seconds if last is None else last + _SMOOTHING * (seconds - last)

    @contextmanager
    def turn(self, wait: float | None = None) -> Iterator[None]:
        """Hold one slot for the block; wait for it at most ``wait`` seconds (``None``:
        no bound of its own) and at most until the deadline.

        Raises:
            DeadlineExceeded: the deadline passed while waiting.
            Busy: no slot came free within ``wait`` seconds.
        """
        left = deadline.remaining()
        bounded = wait is not None and (left is None or wait < left)
        if not self._free.acquire(timeout=wait if bounded else left):
            if bounded:
                raise self.busy(wait or 0.0)
            raise deadline.exceeded()
        started = time.monotonic()
        with self._held_lock:
            self._holders += 1
        try:
            deadline.check()
            yield
        finally:
            with self._held_lock:
                self._holders -= 1
            self._free.release()
            self._record(time.monotonic() - started)

    def busy(self, waited: float) -> Busy:
        """The error of a call that waited ``waited`` seconds for a turn in vain."""
        retry_after = max(1.0, self._held if self._held is not None else waited)
        return Busy(
            f"all {self.slots} turns for {self.what} are taken and none came free within "
            f"{waited:g} s; try again in about {retry_after:.0f} s",
            retry_after=retry_after,
        )
