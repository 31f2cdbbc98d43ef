"""A store's health, asked in bounded time: ``HealthProbe``.

A health check must answer even when the store does not: a PostgreSQL server that is
gone takes its connect timeout to say so, a big SQLite file longer to check whole. The
probe asks in a daemon thread of its own, one question at a time (callers that come
while one is out wait for that one), and a caller waits no longer than its timeout: a
store that has not answered by then is reported down.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from toolkit.errors import StoreError

if TYPE_CHECKING:
    from toolkit.store.base import HealthCheck, SourceStore

    class Probed(HealthCheck, SourceStore, Protocol):
        """What a probe asks of a store: its check, then its sources."""


@dataclass(frozen=True)
class StoreHealth:
    """A store that answered, and its size."""

    sources: int
    messages: int


class _Question:
    def __init__(self) -> None:
        self.checked = threading.Event()
        self.counted = threading.Event()
        self.error: StoreError | None = None
        self.health: StoreHealth | None = None


class HealthProbe:
    """Asks ``store`` whether it answers (``check_health``), then its size.

    Args:
        store: the store to ask.
    """

    def __init__(self, store: Probed) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._question: _Question | None = None
        self._last = StoreHealth(sources=0, messages=0)

    def run(self, timeout: float) -> StoreHealth:
        """The store's size once it answered its check within ``timeout`` seconds.

        When the check passed but counting did not finish in the time left, the size
        counted last time is given.

        Raises:
            StoreError: the store failed its check (``StoreDamaged`` when its file is
                corrupted), or did not answer within ``timeout``.
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            question = self._question
            if question is None or question.counted.is_set():
                question = self._question = _Question()
                threading.Thread(
                    target=self._ask, args=(question, timeout * 0.6), daemon=True, name="health"
                ).start()
        if not question.checked.wait(timeout):
            raise StoreError(f"the store did not answer its health check within {timeout:g} s")
        if question.error is not None:
            raise question.error
        question.counted.wait(max(0.0, deadline - time.monotonic()))
        if question.health is not None:
            self._last = question.health
        return self._last

    def _ask(self, question: _Question, budget: float) -> None:
        try:
            self.store.check_health(budget)
            question.checked.set()
            sources = self.store.list_sources()
            question.health = StoreHealth(
                sources=len(sources), messages=sum(s.message_count for s in sources)
            )
        except StoreError as exc:
            question.error = exc
        except Exception as exc:  # a driver's surprise is still "the store failed"
            question.error = StoreError(f"the store failed its health check: {exc}")
        finally:
            question.checked.set()
            question.counted.set()
