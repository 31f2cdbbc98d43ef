"""Per-key token buckets: the limiter itself on a fake clock, and the 429 problem."""

from __future__ import annotations

from typing import Annotated

import pytest
from fastapi import Depends
from fastapi.testclient import TestClient

from service.app import create_app
from service.deps import PrincipalDep, require_scope
from service.ratelimit import TokenBucketLimiter, Unlimited, limiter_from_settings
from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.errors import RateLimited
from toolkit.models import ApiKeyRecord, SourceKind


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_refusal_then_refill() -> None:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=60, burst=3, clock=clock)
    for _ in range(3):
        limiter.hit("a")
    with pytest.raises(RateLimited) as refused:
        limiter.hit("a")
    assert refused.value.retry_after == pytest.approx(1.0)
    clock.now += 0.5
    with pytest.raises(RateLimited) as again:
        limiter.hit("a")
    assert again.value.retry_after == pytest.approx(0.5)
    clock.now += 0.5
    limiter.hit("a")  # one token refilled after a second at 1/s


def test_keys_have_their_own_buckets() -> None:
    limiter = TokenBucketLimiter(per_minute=6, burst=1, clock=FakeClock())
    limiter.hit("a")
    limiter.hit("b")
    with pytest.raises(RateLimited) as refused:
        limiter.hit("a")
    assert refused.value.retry_after == pytest.approx(10.0)


def test_bucket_never_overfills() -> None:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=60, burst=2, clock=clock)
    limiter.hit("a")
    clock.now += 3600  # an hour idle still gives only `burst` tokens
    limiter.hit("a")
    limiter.hit("a")
    with pytest.raises(RateLimited):
        limiter.hit("a")


def test_sustained_rate_matches_per_minute() -> None:
    clock = FakeClock()
    limiter = TokenBucketLimiter(per_minute=120, burst=1, clock=clock)
    admitted = 0
    for _ in range(6000):  # one minute in 10 ms steps
        clock.now += 0.01
        try:
            limiter.hit("a")
            admitted += 1
        except RateLimited:
            pass
    assert admitted in (120, 121)


def test_zero_rate_disables(settings: Settings) -> None:
    assert isinstance(limiter_from_settings(settings), Unlimited)
    with pytest.raises(ValueError, match="per_minute"):
        TokenBucketLimiter(per_minute=0, burst=1)


def test_429_problem_with_retry_after(settings: Settings) -> None:
    limited = settings.replace(service={"rate_limit_per_minute": 6.0, "rate_limit_burst": 2})
    app = create_app(limited)
    store = state_of(app).workspace.store
    store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="lens_public")
    one, _ = create_api_key(store, name="one", scopes={"sources.read"})
    two, _ = create_api_key(store, name="two", scopes={"sources.read"})
    params = {"source_ref": "@lens_public"}
    with TestClient(app) as client:
        statuses = [
            client.get(
                "/v1/sources/by-ref", params=params, headers={"Authorization": f"Bearer {one}"}
            )
            for _ in range(3)
        ]
        other = client.get(
            "/v1/sources/by-ref", params=params, headers={"Authorization": f"Bearer {two}"}
        )
    assert [r.status_code for r in statuses] == [200, 200, 429]
    refused = statuses[-1]
    assert refused.headers["content-type"] == "application/problem+json"
    assert 1 <= int(refused.headers["retry-after"]) <= 10
    assert refused.json()["title"] == "Rate limited"
    assert other.status_code == 200


def test_one_request_spends_one_token_however_many_dependencies_ask(settings: Settings) -> None:
    app = create_app(
        settings.replace(service={"rate_limit_per_minute": 6.0, "rate_limit_burst": 2})
    )

    @app.get("/_test/both")
    def both(
        principal: PrincipalDep,
        scoped: Annotated[ApiKeyRecord, Depends(require_scope("search.read"))],
    ) -> int:
        assert principal.id == scoped.id
        return principal.id

    token, _ = create_api_key(state_of(app).workspace.store, name="k", scopes={"search.read"})
    with TestClient(app) as client:
        headers = {"Authorization": f"Bearer {token}"}
        statuses = [client.get("/_test/both", headers=headers).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
