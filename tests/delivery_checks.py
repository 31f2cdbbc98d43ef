"""What the service says of a delivery, checked the same for a schedule and an alert:
/healthz of a delivery that failed (``assert_one_failing``), how ``resend`` answers
(``resent_on_request``), and what a worker that died mid-send leaves in the store for
them to find (``die_mid_send``). The servers they deliver to: ``delivery_servers``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx2
from fastapi.testclient import TestClient


def assert_one_failing(
    client: TestClient, listed: str, *, hidden: str, detail: str | None = None, **expected: Any
) -> None:
    """/healthz lists one failing delivery under ``listed`` (``failing_alerts``,
    ``failing_deliveries``), with the ``expected`` fields and a detail holding ``detail``,
    and shows ``hidden`` (a destination's secret) nowhere."""
    health = client.get("/healthz").json()
    assert hidden not in str(health)
    (failing,) = health[listed]
    assert {key: failing[key] for key in expected} == expected, failing
    if detail is not None:
        assert detail in failing["detail"], failing


def resent_on_request(
    client: TestClient, auth: Callable[..., dict[str, str]], path: str, *, not_found: str
) -> httpx2.Response:
    """``POST <path>/resend`` (``path``: a schedule's or alert's): refused to a key that
    only reads (403), answered to one that writes (200, returned); the same for an id
    that does not exist is a 404 problem titled ``not_found``."""
    denied = client.post(f"{path}/resend", headers=auth("schedule.read"))
    assert denied.status_code == 403
    resent = client.post(f"{path}/resend", headers=auth("schedule.write"))
    assert resent.status_code == 200, resent.text
    missing = client.post(f"{path.rsplit('/', 1)[0]}/999/resend", headers=auth("schedule.write"))
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json()["title"] == not_found
    return resent


def die_mid_send(ledger: Any, run_id: int, *, owner: str | None, status: str) -> None:
    """Leave in ``ledger`` (the store of a schedule's runs, or its alert posts' ledger) what a
    worker that died after the Bot API took the message leaves behind: the first
    destination's attempt begun and no outcome, the run still ``status`` (``written``,
    ``claimed``) and its lease run out."""
    past = datetime(2000, 1, 1, tzinfo=UTC)
    ledger.update_run(run_id, owner=owner, lease_until=past, status=status)
    ledger.set_result(run_id, 0, state="sending", attempts=1, detail=None, now=past)
