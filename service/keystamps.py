""" "Key last used" stamps, written off the request path.

Authentication must never wait for the store's write lock (an import may hold it for a
while): ``KeyStamps.submit`` hands the stamp to the store's background writer
(``MessageStore.write_behind``), which drops it when it is busy; the stamp is
bookkeeping, and the next request of that key tries again. One stamp per key is in
flight at a time, so a burst of requests does not fill the writer's queue with copies.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Protocol


class StampStore(Protocol):
    """What ``KeyStamps`` needs of the workspace's store."""

    def write_behind(self, task: Callable[[], object]) -> bool:
        """Queue ``task`` for the background writer; ``False`` when it is busy."""
        ...

    def flush_writes(self, timeout: float = 10.0) -> bool:
        """Wait until queued writes are done; ``False`` on timeout."""
        ...

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record that key ``key_id`` was used at ``when``."""
        ...


class KeyStamps:
    """Records key use through ``store.write_behind``, one pending stamp per key.

    Args:
        store: where the stamps go (the workspace's store).
    """

    def __init__(self, store: StampStore) -> None:
        self.store = store
        self._pending: set[int] = set()
        self._lock = threading.Lock()
        self.dropped = 0

    def submit(self, key_id: int, when: datetime) -> None:
        """Queue a stamp for ``key_id`` without waiting; drop it when the writer is busy."""
        with self._lock:
            if key_id in self._pending:
                return
            self._pending.add(key_id)

        def write() -> None:
            try:
                self.store.touch_api_key(key_id, when)
            finally:
                self._settle(key_id)

        if not self.store.write_behind(write):
            self._settle(key_id)
            self.dropped += 1

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until queued stamps are written (tests); ``False`` on timeout."""
        return self.store.flush_writes(timeout)

    def _settle(self, key_id: int) -> None:
        with self._lock:
            self._pending.discard(key_id)
