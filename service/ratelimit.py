"""Per-key rate limits: a token bucket per API key, in process (DESIGN.md §3).

Each key owns a bucket of ``burst`` tokens refilled at ``per_minute / 60`` tokens a
second; a request takes one token or is refused with ``RateLimited(retry_after)``, the
seconds until a token is back. When the store keeps shared buckets (its optional
``RateBuckets`` part, PostgreSQL's: ``take_rate_token``, one atomic statement per
request), every replica and worker on
that database draws from the same bucket per key (``SharedTokenBucketLimiter``).

Failed authentications are limited per client address by a bucket that also answers
``check`` (is this client refused right now?) without taking a token:
``FailureLimiter``. A client that spent it is refused before its key is looked at. With
shared buckets the failures are counted in the store too (``SharedFailureLimiter``), so
a client guessing keys against several replicas spends one budget; only failures cost a
statement, never a good request.

Memory and time stay bounded however many clients come: each limiter keeps at most
``max_keys`` entries (``service.recent.RecentMap``, least recently written first); a
request costs O(1) whatever that number, dropping a few stale entries from the front
(a bucket idle long enough to be full again needs no memory). Past the bound the least
recently written entry is forgotten: that client starts again with a full bucket, no
more than it would get from a fresh address.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from service.recent import RecentMap
from toolkit.config import Settings
from toolkit.errors import RateLimited
from toolkit.workspace.assembly import RateBuckets

# Refills are sums of small floats; without a little slack, rounding would make a
# client that waits exactly as long as it was told fail by a hair and wait again.
_EPSILON = 1e-9
MAX_KEYS = 50_000
"""Entries a limiter keeps at most (about 200 bytes each)."""


class RateLimiter(Protocol):
    """Admits or refuses one request of a client."""

    def hit(self, key: str) -> None:
        """Take one request's share for ``key``; raise ``RateLimited`` when none is left."""
        ...


class FailureLimiter(RateLimiter, Protocol):
    """A limiter that can also tell, without taking anything, whether ``key`` is refused."""

    def check(self, key: str) -> None:
        """Raise ``RateLimited`` when ``key`` has no token left; take nothing."""
        ...


class Unlimited:
    """A limiter that admits everything (a rate of 0 per minute)."""

    def hit(self, key: str) -> None:
        """Admit the request."""

    def check(self, key: str) -> None:
        """Admit the request."""


class TokenBucketLimiter:
    """An in-process token bucket per key.

    Args:
        per_minute: sustained requests per minute (> 0).
        burst: bucket size: requests a fresh or idle key may make at once (>= 1).
        subject: who the limit is for, in the refusal's message.
        clock: monotonic seconds; tests pass a fake one.
        max_keys: buckets kept at most (the least recently used is forgotten past it).
    """

    def __init__(
        self,
        *,
        per_minute: float,
        burst: int,
        subject: str = "this API key",
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a token bucket needs per_minute > 0 and burst >= 1")
        self.per_minute = per_minute
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.subject = subject
        self._clock = clock
        # key -> (tokens, updated at); the clock is monotonic, so the least recently
        # written bucket is also the one idle longest, the first to be full again.
        self._buckets: RecentMap[tuple[float, float]] = RecentMap(max_keys)
        self._full_after = self.burst / self.rate
        self._lock = threading.Lock()

    def hit(self, key: str) -> None:
        """Take one token for ``key``; raise ``RateLimited`` with the wait when empty."""
        self._take(key, 1.0)

    def check(self, key: str) -> None:
        """Raise ``RateLimited`` when ``key`` has no token left; take nothing."""
        self._take(key, 0.0)

    def _take(self, key: str, cost: float) -> None:
        with self._lock:
            now = self._clock()
            found = self._buckets.get(key)
            tokens = self.burst
            if found is not None:
                tokens = min(self.burst, found[0] + (now - found[1]) * self.rate)
            if tokens < 1.0 - _EPSILON:
                # Nothing written: the stored bucket already says this (and a refused
                # client cannot move its entry away from the front).
                raise RateLimited(
                    f"rate limit of {self.per_minute:g} requests per minute "
                    f"(bursts of {self.burst:g}) exceeded for {self.subject}",
                    retry_after=(1.0 - tokens) / self.rate,
                )
            if cost:  # a check takes nothing and so writes nothing
                self._buckets.put(key, (max(0.0, tokens - cost), now), stale=self._idle(now))

    def _idle(self, now: float) -> Callable[[tuple[float, float]], bool]:
        """Whether a bucket has been idle long enough to be full again (then it needs no
        memory: a missing bucket is a full one)."""
        return lambda bucket: now - bucket[1] >= self._full_after


class SharedTokenBucketLimiter:
    """A token bucket per key kept in the store, so that replicas share one budget.

    Args:
        buckets: the store holding the buckets.
        per_minute: sustained requests per minute (> 0).
        burst: bucket size (>= 1).
    """

    def __init__(self, buckets: RateBuckets, *, per_minute: float, burst: int) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a token bucket needs per_minute > 0 and burst >= 1")
        self.buckets = buckets
        self.per_minute = per_minute
        self.burst = burst

    def hit(self, key: str) -> None:
        """Take one token for ``key`` from the shared bucket; ``RateLimited`` when empty."""
        wait = self.buckets.take_rate_token(key, per_minute=self.per_minute, burst=self.burst)
        if wait is not None:
            raise RateLimited(
                f"rate limit of {self.per_minute:g} requests per minute "
                f"(bursts of {self.burst}) exceeded for this API key",
                retry_after=wait,
            )


class SharedFailureLimiter:
    """Failed authentications per client, counted in the store's shared buckets.

    ``hit`` (a failure) takes a token from the shared bucket; when it finds the bucket
    empty the client is refused and remembered here until a token is back, so that
    ``check``, which runs on every request, costs no statement. Another replica learns
    of the refusal at the client's next failure there: the budget is one for all
    replicas, and a client spends at most one more key check per replica once it is out.

    Args:
        buckets: the store holding the buckets.
        per_minute: sustained failures per minute (> 0).
        burst: failures a client may make at once (>= 1).
        clock: monotonic seconds; tests pass a fake one.
        max_keys: refused clients remembered at most (one forgotten costs this replica
            one more statement at its next failure, nothing more).
    """

    def __init__(
        self,
        buckets: RateBuckets,
        *,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a token bucket needs per_minute > 0 and burst >= 1")
        self.buckets = buckets
        self.per_minute = per_minute
        self.burst = burst
        self._clock = clock
        self._refused: RecentMap[float] = RecentMap(max_keys)  # key -> time a token is back
        self._lock = threading.Lock()

    def _refusal(self, wait: float) -> RateLimited:
        return RateLimited(
            f"rate limit of {self.per_minute:g} requests per minute (bursts of "
            f"{self.burst}) exceeded for failed authentications from this client",
            retry_after=wait,
        )

    def check(self, key: str) -> None:
        """Raise ``RateLimited`` while ``key`` is known to be out of tokens."""
        now = self._clock()
        with self._lock:
            until = self._refused.get(key)
            if until is not None and until <= now:
                self._refused.discard(key)
                until = None
        if until is not None:
            raise self._refusal(until - now)

    def hit(self, key: str) -> None:
        """Count one failure of ``key`` in the shared bucket; ``RateLimited`` when empty."""
        wait = self.buckets.take_rate_token(key, per_minute=self.per_minute, burst=self.burst)
        if wait is None:
            return
        now = self._clock()
        with self._lock:
            self._refused.put(key, now + wait, stale=lambda until: until <= now)
        raise self._refusal(wait)


def limiter_from_settings(settings: Settings, store: object | None = None) -> RateLimiter:
    """The limiter the settings ask for: none when the rate is 0; the store's shared
    buckets when it has them (PostgreSQL); else an in-process token bucket."""
    per_minute, burst = settings.service.rate_limit_per_minute, settings.service.rate_limit_burst
    return _limiter(store, per_minute, burst, SharedTokenBucketLimiter, "this API key")


def auth_failure_limiter_from_settings(
    settings: Settings, store: object | None = None
) -> FailureLimiter:
    """The per-client limiter of failed authentications: none when its rate is 0; one
    counted in the store's shared buckets when it has them (PostgreSQL); else in process."""
    per_minute, burst = (
        settings.service.auth_failures_per_minute,
        settings.service.auth_failure_burst,
    )
    subject = "failed authentications from this client"
    return _limiter(store, per_minute, burst, SharedFailureLimiter, subject)


Shared = TypeVar("Shared", "SharedTokenBucketLimiter", "SharedFailureLimiter")


def _limiter(
    store: object | None, per_minute: float, burst: int, shared: type[Shared], subject: str
) -> Shared | Unlimited | TokenBucketLimiter:
    """No limit at a rate of 0; the store's shared buckets when it has them; else in process."""
    if per_minute <= 0:
        return Unlimited()
    if isinstance(store, RateBuckets):
        return shared(store, per_minute=per_minute, burst=burst)
    return TokenBucketLimiter(per_minute=per_minute, burst=burst, subject=subject)
