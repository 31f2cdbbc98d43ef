"""Failed authentications count against a per-client limit (issue 11, item 5).

A client that spent its bucket of failures gets 429 problems with ``Retry-After``,
even for a good key, until the bucket refills; other clients are not affected, and
successful requests spend nothing of it.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.ratelimit import (
    SharedFailureLimiter,
    TokenBucketLimiter,
    auth_failure_limiter_from_settings,
)
from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.errors import RateLimited
from toolkit.models import SourceKind

PATH = "/v1/sources/by-ref"
PARAMS = {"source_ref": "@lens_public"}
BAD = {"Authorization": "Bearer mlk_00000000_" + "x" * 43}


@pytest.fixture
def limited(settings: Settings) -> Settings:
    return settings.replace(service={"auth_failures_per_minute": 1.0, "auth_failure_burst": 3})


def _app_and_key(settings: Settings) -> tuple[object, dict[str, str]]:
    app = create_app(settings)
    store = state_of(app).workspace.store
    store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="lens_public")
    token, _ = create_api_key(store, name="good", scopes={"sources.read"})
    return app, {"Authorization": f"Bearer {token}"}


def test_failures_beyond_the_burst_are_429_with_retry_after(limited: Settings) -> None:
    app, good = _app_and_key(limited)
    with TestClient(app) as client:  # type: ignore[arg-type]
        statuses = [client.get(PATH, params=PARAMS, headers=BAD).status_code for _ in range(4)]
        anonymous = client.get(PATH, params=PARAMS)
        with_good_key = client.get(PATH, params=PARAMS, headers=good)
    assert statuses == [401, 401, 401, 429]
    assert anonymous.status_code == 429  # a missing key is a failed attempt too
    assert with_good_key.status_code == 429  # refused before the key is looked at
    assert with_good_key.headers["content-type"] == "application/problem+json"
    assert 1 <= int(with_good_key.headers["retry-after"]) <= 60
    assert "failed authentications" in with_good_key.json()["detail"]


def test_other_clients_are_not_affected(limited: Settings) -> None:
    app, good = _app_and_key(limited)
    # Two clients of one app at once (no lifespan: the store stays open for both).
    attacker = TestClient(app, client=("10.0.0.1", 1234))  # type: ignore[arg-type]
    other = TestClient(app, client=("10.0.0.2", 1234))  # type: ignore[arg-type]
    for _ in range(5):
        attacker.get(PATH, params=PARAMS, headers=BAD)
    assert attacker.get(PATH, params=PARAMS, headers=good).status_code == 429
    assert other.get(PATH, params=PARAMS, headers=good).status_code == 200


def test_successes_spend_nothing(limited: Settings) -> None:
    app, good = _app_and_key(limited)
    with TestClient(app) as client:  # type: ignore[arg-type]
        statuses = [client.get(PATH, params=PARAMS, headers=good).status_code for _ in range(10)]
    assert set(statuses) == {200}


def test_check_takes_nothing_and_the_limit_can_be_off(settings: Settings) -> None:
    now = [0.0]
    limiter = TokenBucketLimiter(per_minute=60, burst=1, clock=lambda: now[0])
    limiter.check("ip")
    limiter.check("ip")  # still a token: check took none
    limiter.hit("ip")
    with pytest.raises(RateLimited):
        limiter.check("ip")
    now[0] += 1.0
    limiter.check("ip")
    off = auth_failure_limiter_from_settings(settings)  # conftest turns it off
    for _ in range(100):
        off.hit("ip")
    off.check("ip")


class FakeBuckets:
    """Shared buckets as a store keeps them (refilled by elapsed time), counting calls."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock
        self.calls = 0
        self.state: dict[str, tuple[float, float]] = {}

    def take_rate_token(self, key: str, *, per_minute: float, burst: int) -> float | None:
        self.calls += 1
        rate = per_minute / 60
        tokens, at = self.state.get(key, (float(burst), self.clock[0]))
        tokens = min(burst, tokens + (self.clock[0] - at) * rate)
        if tokens < 1:
            self.state[key] = (tokens, self.clock[0])
            return (1 - tokens) / rate
        self.state[key] = (tokens - 1, self.clock[0])
        return None


def test_replicas_share_one_failure_budget_and_checks_cost_no_statement(
    limited: Settings,
) -> None:
    now = [0.0]
    buckets = FakeBuckets(now)
    chosen = auth_failure_limiter_from_settings(limited, buckets)
    assert isinstance(chosen, SharedFailureLimiter)
    replicas = [SharedFailureLimiter(buckets, per_minute=60, burst=3, clock=lambda: now[0])]
    replicas.append(SharedFailureLimiter(buckets, per_minute=60, burst=3, clock=lambda: now[0]))
    admitted = 0
    for i in range(8):
        replica = replicas[i % 2]
        try:
            replica.check("ip")
            replica.hit("ip")
            admitted += 1
        except RateLimited:
            pass
    assert admitted == 3  # one budget of 3 for both replicas, not 3 each
    calls = buckets.calls
    for replica in replicas:  # both have met the empty bucket once: refused locally now
        with pytest.raises(RateLimited, match="failed authentications") as refused:
            replica.check("ip")
        assert 0 < refused.value.retry_after <= 1.0
    assert buckets.calls == calls  # a check reads no shared bucket
    replicas[0].check("other-ip")  # another client is not refused
    now[0] += 1.0  # a token is back
    replicas[0].check("ip")
    replicas[0].hit("ip")
    with pytest.raises(RateLimited):
        replicas[1].hit("ip")


def _failures_from_forwarded_addresses(settings: Settings) -> list[int]:
    """Four bad keys from one peer, each claiming another client in X-Forwarded-For."""
    app, _ = _app_and_key(settings)
    with TestClient(app, client=("127.0.0.1", 4321)) as client:  # type: ignore[arg-type]
        return [
            client.get(
                PATH, params=PARAMS, headers=BAD | {"X-Forwarded-For": f"203.0.113.{i}"}
            ).status_code
            for i in range(4)
        ]


def test_forwarded_addresses_are_ignored_unless_the_peer_is_a_trusted_proxy(
    limited: Settings,
) -> None:
    # Not trusted (the default, even on loopback): the peer is the client, and spends
    # its own budget whatever it claims to forward.
    assert _failures_from_forwarded_addresses(limited) == [401, 401, 401, 429]
    trusted = limited.replace(service={"trusted_proxies": "127.0.0.1"})
    # A trusted proxy's forwarded addresses are the clients: four budgets of their own.
    assert _failures_from_forwarded_addresses(trusted) == [401] * 4
