"""The limiters' memory and per-request cost stay bounded, however many clients come.

Issue 33: with 10,000 tracked addresses every request rebuilt the whole table (15 →
74 ms p50). The cost is counted here in operations on the table, never in wall time.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.ratelimit import SharedFailureLimiter, TokenBucketLimiter
from service.recent import STALE_PER_WRITE, RecentMap
from toolkit.errors import RateLimited


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingDict(OrderedDict[str, Any]):
    """An ``OrderedDict`` that counts every call on it and every step of an iteration."""

    ops = 0

    def _count(self) -> None:
        CountingDict.ops += 1

    def get(self, key: str, default: Any = None) -> Any:
        self._count()
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self._count()
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._count()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._count()
        super().__delitem__(key)

    def __contains__(self, key: object) -> bool:
        self._count()
        return super().__contains__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self._count()
        return super().pop(key, *default)

    def popitem(self, last: bool = True) -> tuple[str, Any]:
        self._count()
        return super().popitem(last)

    def move_to_end(self, key: str, last: bool = True) -> None:
        self._count()
        super().move_to_end(key, last)

    def _steps(self, inner: Iterator[Any]) -> Iterator[Any]:
        for item in inner:
            self._count()
            yield item

    def __iter__(self) -> Iterator[str]:
        return self._steps(super().__iter__())

    def keys(self) -> Any:
        return self._steps(iter(super().keys()))

    def values(self) -> Any:
        return self._steps(iter(super().values()))

    def items(self) -> Any:
        return self._steps(iter(super().items()))


def _counted(table: RecentMap[Any]) -> None:
    table._items = CountingDict(table._items)


def _ops(action: Any) -> int:
    before = CountingDict.ops
    action()
    return CountingDict.ops - before


def test_a_recent_map_never_exceeds_its_bound_and_forgets_the_oldest() -> None:
    table: RecentMap[int] = RecentMap(limit=100)
    for n in range(1_000):
        table.put(f"k{n}", n)
        assert len(table) <= 100
    assert table.get("k899") is None
    assert table.get("k900") == 900
    table.put("k900", 0)  # written again: now the most recent
    table.put("new", 1)
    assert table.get("k900") == 0
    assert table.get("k901") is None


def test_stale_entries_leave_from_the_front_a_few_per_write() -> None:
    table: RecentMap[int] = RecentMap(limit=1_000)
    for n in range(100):
        table.put(f"k{n}", n)
    table.put("now", 1_000, stale=lambda value: value < 500)
    assert len(table) == 101 - STALE_PER_WRITE
    for n in range(30):
        table.put(f"late{n}", 1_000, stale=lambda value: value < 500)
    assert len(table) == 31  # every stale one gone: they leave faster than writes come


@pytest.mark.parametrize("tracked", [10, 20_000])
def test_the_table_stays_within_its_bound(tracked: int) -> None:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=10, burst=5, clock=clock, max_keys=1_000)
    for n in range(tracked):
        limiter.hit(f"10.0.{n // 256}.{n % 256}")
        clock.now += 0.001  # every bucket stays partly spent: nothing is stale
        assert len(limiter._buckets) <= 1_000


def _limiter_tracking(addresses: int) -> tuple[TokenBucketLimiter, FakeClock]:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=10, burst=5, clock=clock)
    for n in range(addresses):
        limiter.hit(f"addr{n}")  # all fresh: the old pruning scanned them all, kept all
    _counted(limiter._buckets)
    return limiter, clock


def test_a_requests_cost_does_not_grow_with_the_tracked_addresses() -> None:
    costs = []
    for addresses in (100, 20_000):
        limiter, clock = _limiter_tracking(addresses)
        clock.now += 1.0
        costs.append(
            (
                _ops(lambda: limiter.check("good client")),  # noqa: B023 - called at once
                _ops(lambda: limiter.hit("new client")),  # noqa: B023
                _ops(lambda: limiter.hit("addr7")),  # noqa: B023
            )
        )
    assert costs[0] == costs[1]
    assert max(costs[1]) <= 3 + STALE_PER_WRITE * 2


def test_a_request_after_a_long_quiet_costs_no_more_than_any_other() -> None:
    limiter, clock = _limiter_tracking(20_000)
    clock.now += 3_600.0  # every bucket is full again: all stale at once
    assert _ops(lambda: limiter.hit("someone")) <= 3 + STALE_PER_WRITE * 2
    for n in range(20_000 // STALE_PER_WRITE):
        limiter.hit(f"later{n}")
    assert len(limiter._buckets) <= 20_000 // STALE_PER_WRITE + 1  # the stale ones drained


def test_a_spent_client_stays_refused_among_many_others() -> None:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=10, burst=2, clock=clock, max_keys=10_000)
    limiter.hit("attacker")
    limiter.hit("attacker")
    for n in range(5_000):
        limiter.hit(f"addr{n}")
    with pytest.raises(RateLimited):
        limiter.check("attacker")
    limiter.check("addr1")  # a client with a token left is not refused by a check


class RefusingBuckets:
    """Shared buckets that refuse every failure for 30 s."""

    def take_rate_token(self, key: str, *, per_minute: float, burst: int) -> float | None:
        return 30.0


def _refusal_ops(action: Callable[[str], None], key: str) -> int:
    before = CountingDict.ops
    with pytest.raises(RateLimited):
        action(key)
    return CountingDict.ops - before


def test_the_shared_limiters_refusals_are_bounded_and_cost_o1() -> None:
    clock = FakeClock()
    limiter = SharedFailureLimiter(
        RefusingBuckets(), per_minute=10, burst=1, clock=clock, max_keys=500
    )
    costs = []
    for n in range(5_000):
        if n in (100, 4_900):
            _counted(limiter._refused)
            costs.append(_refusal_ops(limiter.hit, "new"))
            costs.append(_refusal_ops(limiter.check, f"addr{n - 1}"))
        with pytest.raises(RateLimited):
            limiter.hit(f"addr{n}")
        assert len(limiter._refused) <= 500
    assert max(costs) <= 3 + STALE_PER_WRITE * 2, costs  # the same at 100 and 4,900
