"""``/v1/alerts``: add (secrets never echoed), a live sync over HTTP posts the new
matches to a signed webhook on 127.0.0.1 at once, at most N an hour (the rest counted),
removal, and a Telegram post left uncertain by a worker that died mid-send posted again
on request (bad bodies: ``test_delivery_problems.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from delivery_checks import assert_one_failing, die_mid_send, resent_on_request
from delivery_servers import Received, http_server
from fastapi.testclient import TestClient

from toolkit.delivery.webhook import verify
from toolkit.embeddings import Embedder
from toolkit.workspace import Workspace

SECRET = "alert-webhook-secret"
TOKEN = "987654:fake-bot-token"


# The background runner stays off: the sync's own check posts (or a test runs it).
pytestmark = pytest.mark.delivery_by_hand


@pytest.fixture
def app_state(embedder: Embedder) -> dict[str, Any]:
    return {"embedder": embedder}


def test_a_sync_posts_its_new_matches_at_once_within_the_cap(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    received = Received()
    with http_server(received) as url:
        hook = {"kind": "webhook", "url": f"{url}/in?key=abc", "secret": SECRET}
        body = {"query": "live message", "source_refs": ["@lens_public"], "min_score": 0.05,
                "max_per_hour": 2, "destinations": [hook]}  # fmt: skip
        added = client.post("/v1/alerts", json=body, headers=auth("schedule.write"))
        assert added.status_code == 201, added.text
        assert SECRET not in added.text
        alert = added.json()
        assert alert["destinations"][0]["config"]["secret"] == "**********"
        synced = client.post(
            "/v1/sources/by-ref/sync",
            json={"source_ref": "@lens_public"},
            headers=auth("sources.write"),
        )
        assert synced.status_code == 200, synced.text
        again = client.post(f"/v1/alerts/{alert['id']}/run", headers=auth("schedule.write"))
    assert again.status_code == 200, again.text
    assert len(received.requests) == 2  # the cap: 2 an hour
    for path, headers, raw in received.requests:
        assert path == "/in?key=abc"
        assert verify(SECRET, headers["X-Mlens-Timestamp"], raw, headers["X-Mlens-Signature"])
    texts = [d["match"]["text"] for d in received.json()]
    assert all(t.startswith("live message ") for t in texts)
    assert len(set(texts)) == 2
    shown = again.json()
    assert shown["posts_last_hour"] == 2
    assert shown["held"] == 17  # messages 7..25 are new; 2 posted, the rest counted
    assert [d["state"] for d in shown["destinations"]] == ["sent"]
    listed = client.get("/v1/alerts", headers=auth("schedule.read")).json()["items"]
    assert [a["id"] for a in listed] == [1, alert["id"]]
    assert SECRET not in str(listed)


def test_removing_an_alert_then_it_is_gone(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    assert client.get("/v1/alerts/1", headers=auth("schedule.read")).json()["query"] == "post"
    assert client.delete("/v1/alerts/1", headers=auth("schedule.write")).status_code == 204
    gone = client.delete("/v1/alerts/1", headers=auth("schedule.write"))
    assert gone.status_code == 404
    assert gone.json()["title"] == "Alert not found"
    assert client.post("/v1/alerts/1/run", headers=auth("schedule.write")).status_code == 404


def test_a_failing_destination_shows_in_healthz(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    received = Received(replies=[(500, {}, {})] * 3)
    with http_server(received) as url:
        hook = {"kind": "webhook", "url": f"{url}/in", "secret": SECRET}
        body = {"query": "live message", "min_score": 0.05, "max_per_hour": 1,
                "destinations": [hook]}  # fmt: skip
        added = client.post("/v1/alerts", json=body, headers=auth("schedule.write")).json()
        synced = client.post(
            "/v1/sources/by-ref/sync",
            json={"source_ref": "@lens_public"},
            headers=auth("sources.write"),
        )
        assert synced.status_code == 200, synced.text
    assert len(received.requests) == 3  # the webhook's own tries, then the post waits
    assert_one_failing(
        client, "failing_alerts", hidden=SECRET, detail="HTTP 500", alert_id=added["id"]
    )


def test_an_uncertain_telegram_post_shows_in_healthz_and_is_resent_on_request(
    client: TestClient,
    auth: Callable[..., dict[str, str]],
    sources: Any,
    bot_api: Received,
    app_workspace: Workspace,
) -> None:
    telegram = {"kind": "telegram", "chat_id": "-100555", "bot_token": TOKEN}
    body = {"query": "live message", "source_refs": ["@lens_public"], "min_score": 0.05,
            "max_per_hour": 1, "destinations": [telegram]}  # fmt: skip
    added = client.post("/v1/alerts", json=body, headers=auth("schedule.write")).json()
    path = f"/v1/alerts/{added['id']}"
    synced = client.post(
        "/v1/sources/by-ref/sync",
        json={"source_ref": "@lens_public"},
        headers=auth("sources.write"),
    )
    assert synced.status_code == 200, synced.text
    assert len(bot_api.requests) == 1
    store = app_workspace.assembly.store
    (post,) = store.recent_posts(added["id"])
    die_mid_send(store.post_ledger(), post.id, owner=post.owner, status="claimed")
    app_workspace.alert_runner().run_pending()  # the next worker: not posted again
    assert len(bot_api.requests) == 1
    assert_one_failing(
        client, "failing_alerts", hidden=TOKEN, alert_id=added["id"], state="uncertain"
    )
    resent = resent_on_request(client, auth, path, not_found="Alert not found")
    again = client.post(f"{path}/resend", headers=auth("schedule.write"))
    assert [d["state"] for d in resent.json()["destinations"]] == ["sent"]
    assert again.status_code == 200, again.text
    first, second = bot_api.json()  # once more, and only once
    assert (first["chat_id"], first["text"]) == (second["chat_id"], second["text"])
    assert TOKEN not in resent.text
    assert client.get("/healthz").json().get("failing_alerts", []) == []
