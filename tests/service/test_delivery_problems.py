"""Bad bodies for ``/v1/alerts`` and ``/v1/schedules`` are problems (RFC 9457) that
name the field at fault, an unknown source a 404, and nothing is stored: the seeded
alert and schedule stay the only ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

ALERT = {"query": "post", "min_score": 0.3,
         "destinations": [{"kind": "email", "to": ["ops@example.org"]}]}  # fmt: skip
SCHEDULE = {"source_ref": "@lens_public", "cadence": "daily", "at": "08:00",
            "destinations": [{"kind": "feed"}]}  # fmt: skip
ALERT_CASES = [
    ({"query": ""}, 422, "query"),
    ({"query": "   "}, 422, "query"),
    ({"min_score": 1.01}, 422, "min_score"),
    ({"min_score": -1}, 422, "min_score"),
    ({"max_per_hour": 0}, 422, "max_per_hour"),
    ({"max_per_hour": 1000}, 422, "max_per_hour"),
    ({"source_refs": []}, 422, "source_refs"),
    ({"source_refs": ["not a ref!"]}, 422, "source_refs"),
    ({"destinations": [{"kind": "feed"}]}, 422, "destinations"),
    ({"destinations": []}, 422, "destinations"),
    ({"source_refs": ["@nobody_here"]}, 404, None),
]
SCHEDULE_CASES = [
    ({"source_ref": "@nobody_here"}, 404, None),
    ({"language": "xx"}, 422, "language"),
    ({"at": "8 am"}, 422, "at"),
    ({"cadence": "weekly"}, 422, "weekday"),
    ({"destinations": [{"kind": "webhook", "url": "ftp://x", "secret": "s"}]}, 422, None),
    ({"destinations": []}, 422, "destinations"),
]


# The background runner stays off: nothing but the request under test writes.
pytestmark = pytest.mark.delivery_by_hand


CASES = [
    pytest.param(path, {**base, **change}, status, field, id=f"{path}-{'-'.join(change)}")
    for path, base, cases in (("/v1/alerts", ALERT, ALERT_CASES),
                              ("/v1/schedules", SCHEDULE, SCHEDULE_CASES))
    for change, status, field in cases
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "status", "field"), CASES)
def test_bad_bodies_are_problems_and_store_nothing(
    client: TestClient,
    auth: Callable[..., dict[str, str]],
    sources: Any,
    path: str,
    body: dict[str, Any],
    status: int,
    field: str | None,
) -> None:
    answer = client.post(path, json=body, headers=auth("schedule.write"))
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    if field is not None:
        assert field in answer.text
    assert len(client.get(path, headers=auth("schedule.read")).json()["items"]) == 1
