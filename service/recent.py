"""``RecentMap``: values by key, least recently written first, at most ``limit`` of them.

The rate limiters keep an entry per API key or client address. An attacker with many
addresses must not make every request slower (issue 33: 15 → 74 ms p50 at 10,000
addresses, when each request past 10,000 entries rebuilt the whole table to prune
it). Here every operation costs O(1) whatever the number of entries: a write appends
its key at the end (or moves it there), and entries leave only from the front, a few
stale ones per write and the least recently written one past the bound.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")

STALE_PER_WRITE = 4
"""Stale entries a write may drop from the front: more than the one a write can add, so
stale entries leave faster than new ones come, at a fixed cost per request."""


class RecentMap(Generic[V]):
    """Values by key, least recently written first; never more than ``limit`` of them.

    Args:
        limit: the most entries kept; a write past it forgets the least recently
            written entry.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a RecentMap keeps at least one entry")
        self.limit = limit
        self._items: OrderedDict[str, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> V | None:
        """The value of ``key``, or ``None``; its place in the order stays."""
        return self._items.get(key)

    def put(self, key: str, value: V, *, stale: Callable[[V], bool] | None = None) -> None:
        """Write ``value`` for ``key`` as the most recent entry.

        Args:
            key: the entry's key.
            value: its value.
            stale: whether a value may be forgotten now; up to ``STALE_PER_WRITE``
                stale entries are dropped from the front (the least recently written).
        """
        self._items[key] = value
        self._items.move_to_end(key)
        if stale is not None:
            for _ in range(min(STALE_PER_WRITE, len(self._items))):
                oldest = next(iter(self._items.values()))
                if not stale(oldest):
                    break
                self._items.popitem(last=False)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)

    def discard(self, key: str) -> None:
        """Forget ``key`` (nothing when it is not kept)."""
        self._items.pop(key, None)
