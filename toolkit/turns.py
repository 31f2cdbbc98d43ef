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
passes, with ``DeadlineExceeded``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from toolkit import deadline


class Turns:
    """At most ``slots`` holders at once.

    Args:
        slots: how many calls may compute together (>= 1).
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, not {slots}")
        self.slots = slots
        self._free = threading.BoundedSemaphore(slots)

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold one slot for the block; wait for it at most until the deadline.

        Raises:
            DeadlineExceeded: the deadline passed while waiting.
        """
        if not self._free.acquire(timeout=deadline.remaining()):
            raise deadline.exceeded()
        try:
            deadline.check()
            yield
        finally:
            self._free.release()
