"""``/v1/schedules``: add (secrets never echoed), run now to a fake Bot API on 127.0.0.1,
the Atom feed read back by feedparser, a failing webhook shown in /healthz, removal (bad
bodies: ``test_delivery_problems.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import feedparser
import pytest
from delivery_checks import assert_one_failing, die_mid_send, resent_on_request
from delivery_servers import Received, http_server
from fastapi.testclient import TestClient

from toolkit.workspace import Workspace

TOKEN = "987654:fake-bot-token"
SECRET = "shared-webhook-secret"


# The background runner stays off: these tests run schedules by hand.
pytestmark = pytest.mark.delivery_by_hand


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
    store = app_workspace.assembly.store
    (claim,) = store.runs(added["id"])
    die_mid_send(store, run["id"], owner=claim.owner, status="written")
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
