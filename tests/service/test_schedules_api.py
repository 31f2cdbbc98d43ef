"""``/v1/schedules``: add (secrets never echoed), run now to a fake Bot API on 127.0.0.1,
the Atom feed read back by feedparser, a failing webhook shown in /healthz, removal (bad
bodies: ``test_delivery_problems.py``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import feedparser
import pytest
from delivery_servers import Received, assert_one_failing, http_server, resent_on_request
from fastapi.testclient import TestClient

from toolkit.config import Settings
from toolkit.workspace import Workspace

TOKEN = "987654:fake-bot-token"
SECRET = "shared-webhook-secret"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # The background runner stays off: these tests run schedules by hand.
    return settings.replace(delivery={"runner": False})


@pytest.mark.slow
def test_a_schedule_runs_now_to_the_bot_api_and_its_feed(
    client: TestClient,
    auth: Callable[..., dict[str, str]],
    sources: Any,
    bot_api: Received,
) -> None:
    destinations = [
        {"kind": "telegram", "chat_id": "-100555", "bot_token": TOKEN},
        {"kind": "feed"},
    ]
    body = {"source_ref": "@lens_public", "cadence": "weekly", "at": "09:30",
            "weekday": "fri", "language": "en", "destinations": destinations}  # fmt: skip
    added = client.post("/v1/schedules", json=body, headers=auth("schedule.write"))
    assert added.status_code == 201, added.text
    schedule = added.json()
    assert TOKEN not in added.text
    assert schedule["destinations"][0]["config"]["bot_token"] == "**********"
    assert (schedule["cadence"], schedule["at"], schedule["weekday"]) == (
        "weekly",
        "09:30",
        "fri",
    )
    ran = client.post(f"/v1/schedules/{schedule['id']}/run", headers=auth("schedule.write"))
    assert ran.status_code == 200, ran.text
    assert [d["state"] for d in ran.json()["destinations"]] == ["sent", "sent"]
    (message,) = bot_api.json()
    assert message["chat_id"] == "-100555"
    assert "Lens Public" in message["text"]
    feed = client.get(schedule["feed_path"], headers=auth("schedule.read"))
    assert feed.headers["content-type"].startswith("application/atom+xml")
    parsed = feedparser.parse(feed.content)
    assert not parsed.bozo
    assert len(parsed.entries) == 1
    listed = client.get("/v1/schedules", headers=auth("schedule.read")).json()["items"]
    assert [s["id"] for s in listed] == [1, schedule["id"]]
    assert TOKEN not in str(listed)


@pytest.mark.slow
def test_a_failing_destination_shows_in_healthz(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    received = Received(replies=[(500, {}, {})] * 3)
    with http_server(received) as hook:
        destinations = [{"kind": "webhook", "url": hook + "/in", "secret": SECRET}]
        body = {"source_ref": "@lens_public", "cadence": "daily", "at": "08:00",
                "destinations": destinations}  # fmt: skip
        added = client.post("/v1/schedules", json=body, headers=auth("schedule.write")).json()
        client.post(f"/v1/schedules/{added['id']}/run", headers=auth("schedule.write"))
    assert_one_failing(
        client, "failing_deliveries", hidden=SECRET, detail="HTTP 500", schedule_id=added["id"]
    )


def test_removing_a_schedule_then_it_is_gone(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    assert client.delete("/v1/schedules/1", headers=auth("schedule.write")).status_code == 204
    gone = client.delete("/v1/schedules/1", headers=auth("schedule.write"))
    assert gone.status_code == 404
    assert client.get("/v1/schedules/1/feed.atom", headers=auth("schedule.read")).status_code == 404


@pytest.mark.slow
def test_an_uncertain_telegram_send_shows_in_healthz_and_is_resent_on_request(
    client: TestClient,
    auth: Callable[..., dict[str, str]],
    sources: Any,
    bot_api: Received,
    app_workspace: Workspace,
) -> None:
    destinations = [{"kind": "telegram", "chat_id": "-100555", "bot_token": TOKEN}]
    body = {"source_ref": "@lens_public", "cadence": "daily", "at": "08:00",
            "destinations": destinations}  # fmt: skip
    added = client.post("/v1/schedules", json=body, headers=auth("schedule.write")).json()
    path = f"/v1/schedules/{added['id']}"
    run = client.post(f"{path}/run", headers=auth("schedule.write")).json()["last_run"]
    assert len(bot_api.requests) == 1
    # What a worker that died after the Bot API took the message leaves behind: the
    # attempt begun, no outcome, the run open and its lease run out.
    store = app_workspace.assembly.store
    past = datetime(2000, 1, 1, tzinfo=UTC)
    (claim,) = store.runs(added["id"])
    store.update_run(run["id"], owner=claim.owner, lease_until=past, status="written")
    store.set_result(run["id"], 0, state="sending", attempts=1, detail=None, now=past)
    app_workspace.delivery_runner().run_pending()  # the next worker: not sent again
    assert len(bot_api.requests) == 1
    assert_one_failing(
        client,
        "failing_deliveries",
        hidden=TOKEN,
        detail="may have arrived",
        schedule_id=added["id"],
        state="uncertain",
    )
    resent = resent_on_request(client, auth, path, not_found="Schedule not found")
    assert [d["state"] for d in resent.json()["destinations"]] == ["sent"]
    assert len(bot_api.requests) == 2
    assert client.get("/healthz").json().get("failing_deliveries", []) == []
