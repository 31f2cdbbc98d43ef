""" "Key last used" stamps, written off the request path.

Authentication must never wait for the store's write lock (an import may hold it for a
while): ``KeyStamps.submit`` only puts the stamp on a small queue, and one background
thread writes it. When the queue is full, the stamp is dropped: it is bookkeeping, and
the next request of that key, a minute later, tries again.
"""

from __future__ import annotations

import logging
import queue
import threading
from datetime import datetime

from toolkit.store.base import MessageStore

log = logging.getLogger("service.keystamps")

_QUEUE_SIZE = 256


class KeyStamps:
    """A background writer of ``touch_api_key`` calls.

    Args:
        store: where the stamps go.
        queue_size: stamps waiting at most; more are dropped.
    """

    def __init__(self, store: MessageStore, *, queue_size: int = _QUEUE_SIZE) -> None:
        self.store = store
        self._queue: queue.Queue[tuple[int, datetime] | None] = queue.Queue(queue_size)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending: set[int] = set()
        self.dropped = 0

    def submit(self, key_id: int, when: datetime) -> None:
        """Queue a stamp for ``key_id`` without waiting; drop it when the queue is full."""
        if key_id in self._pending:
            return  # one stamp per key in flight is enough
        self._ensure_running()
        self._pending.add(key_id)
        try:
            self._queue.put_nowait((key_id, when))
        except queue.Full:
            self._pending.discard(key_id)
            self.dropped += 1

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every queued stamp is written (tests, shutdown)."""
        if self._thread is None:
            return
        waiter = threading.Thread(target=self._queue.join, daemon=True)
        waiter.start()
        waiter.join(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (within ``timeout`` seconds), then stop the thread."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return  # the daemon thread dies with the process
        thread.join(timeout)

    def _ensure_running(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="mlens-key-stamps", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                key_id, when = item
                try:
                    self.store.touch_api_key(key_id, when)
                finally:
                    self._pending.discard(key_id)
            except Exception:  # a stamp is not worth a dead writer thread
                log.warning("could not stamp API key use", exc_info=True)
            finally:
                self._queue.task_done()
