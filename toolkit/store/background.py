"""A background writer: small writes a read path wants done, taken off the request path.

A search that had to embed a message, or an authentication that stamps a key's last
use, hands the write to ``BackgroundWriter.submit`` and answers at once. One daemon
thread runs the writes in order, each waiting its turn at the store's writer. The
queue is bounded: when the writer is busy (an import publishing, a burst of searches)
and the queue is full, a write is dropped and ``submit`` says so. Every write it
takes is best effort by design: a lazily computed vector is computed again next
time, a last-used stamp is refreshed by the next request.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

Task = Callable[[], object]


class BackgroundWriter:
    """Runs submitted writes one at a time on a daemon thread.

    Args:
        name: the thread's name (shown in tracebacks and ``py-spy``).
        max_pending: writes that may wait; beyond it ``submit`` drops them.
    """

    def __init__(self, name: str = "store-writer", *, max_pending: int = 256) -> None:
        self._name = name
        self._queue: queue.Queue[Task | None] = queue.Queue(maxsize=max_pending)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._idle = threading.Condition()
        self._unfinished = 0
        self.dropped = 0

    def submit(self, task: Task) -> bool:
        """Queue ``task``; ``False`` (and the write dropped) when the queue is full."""
        self._ensure_thread()
        with self._idle:
            self._unfinished += 1
        try:
            self._queue.put_nowait(task)
        except queue.Full:
            self._done()
            self.dropped += 1
            return False
        return True

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued write has run; ``False`` if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._unfinished:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def close(self, timeout: float = 10.0) -> None:
        """Run what is queued (up to ``timeout``), then stop the thread."""
        self.flush(timeout)
        thread = self._thread
        if thread is not None and thread.is_alive():
            try:
                self._queue.put(None, timeout=1.0)
            except queue.Full:
                return
            thread.join(timeout=1.0)
        self._thread = None

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def _done(self) -> None:
        with self._idle:
            self._unfinished -= 1
            if not self._unfinished:
                self._idle.notify_all()

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            try:
                task()
            except Exception:  # a background write must never kill the thread
                log.warning("a background store write failed", exc_info=True)
            finally:
                self._done()


class BackgroundWrites:
    """``write_behind`` and ``flush_writes`` of a store over its ``_background`` writer."""

    _background: BackgroundWriter

    def write_behind(self, task: Task) -> bool:
        """Run a small write later, off the caller's path; ``False`` when it was dropped.

        For read paths (searches, authentication): the caller never waits for the
        writer. The task runs on one background thread, in submission order.
        """
        return self._background.submit(task)

    def flush_writes(self, timeout: float = 10.0) -> bool:
        """Wait for the writes handed to ``write_behind``; ``False`` on timeout."""
        return self._background.flush(timeout)
