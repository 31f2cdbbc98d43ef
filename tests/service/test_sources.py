"""``GET /v1/sources/by-ref`` and ``POST /v1/sources/by-ref/sync``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from service.deps import get_messenger_client_factory
from toolkit.store.base import MessageStore

Auth = Callable[..., dict[str, str]]


@pytest.mark.parametrize(
    "ref",
    [
        "@lens_public",
        "@LENS_Public",
        "lens_public",
        "https://t.me/lens_public",
        "t.me/s/lens_public/3",
    ],
)
def test_public_source_by_any_ref_form(
    client: TestClient, sources: Any, auth: Auth, ref: str
) -> None:
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": ref}, headers=auth("sources.read")
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "source_ref": ref,  # echoed exactly as given
        "title": "Lens Public",
        "kind": "channel",
        "message_count": 5,  # the service message is not counted
        "first_message_at": "2024-03-02T09:00:00Z",
        "last_message_at": "2024-03-06T09:00:00Z",
        "last_synced_at": None,
        "link": "https://t.me/lens_public",
        "topics": [],  # not a forum
        "timezone": None,  # never learned: read as UTC
        "timezone_origin": None,
    }


def test_a_sources_own_time_zone_is_shown(
    client: TestClient, sources: Any, store: MessageStore, auth: Auth
) -> None:
    store.set_source_timezone(sources.public.id, "Europe/Berlin")
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": "@lens_public"}, headers=auth("sources.read")
    )
    assert response.status_code == 200, response.text
    assert response.json()["timezone"] == "Europe/Berlin"
    assert response.json()["timezone_origin"] == "set"

    store.set_source_timezone(sources.public.id, "+02:00", "inferred")
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": "@lens_public"}, headers=auth("sources.read")
    )
    assert response.json()["timezone"] == "+02:00"
    assert response.json()["timezone_origin"] == "inferred"


def test_private_source_by_internal_link(client: TestClient, sources: Any, auth: Auth) -> None:
    internal_id = sources.private.internal_id
    ref = f"https://t.me/c/{internal_id}/2"
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": ref}, headers=auth("sources.read")
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["source_ref"] == ref
    assert body["kind"] == "chat"
    assert body["title"] == "Team Room"
    assert body["message_count"] == 3
    assert body["first_message_at"] == "2024-03-01T10:00:00Z"
    assert body["link"] == f"https://t.me/c/{internal_id}"


@pytest.mark.parametrize("ref", ["t.me/+AbCdEf", "@ab", "https://example.com/lens_public", " "])
def test_invalid_ref_is_422_naming_source_ref(
    client: TestClient, sources: Any, auth: Auth, ref: str
) -> None:
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": ref}, headers=auth("sources.read")
    )
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    (error,) = response.json()["errors"]
    assert (error["location"], error["field"]) == ("query", "source_ref")


def test_unknown_source_is_404(client: TestClient, sources: Any, auth: Auth) -> None:
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": "@never_imported"}, headers=auth("sources.read")
    )
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert "@never_imported" in response.json()["detail"]


def test_sync_fetches_new_messages_then_nothing(
    client: TestClient, sources: Any, auth: Auth
) -> None:
    headers = auth("sources.write", "sources.read")
    first = client.post(
        "/v1/sources/by-ref/sync", json={"source_ref": "t.me/lens_public"}, headers=headers
    )
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["source_ref"] == "t.me/lens_public"
    # ids 1-6 were imported before (6 as a service message): the live copies replace them.
    assert (body["fetched"], body["inserted"], body["updated"]) == (25, 19, 6)
    assert body["watermark"] == 25
    assert body["complete"] is True
    assert body["message_count"] == 25
    assert body["last_synced_at"] is not None
    assert body["last_synced_at"].endswith("Z")

    again = client.post(
        "/v1/sources/by-ref/sync", json={"source_ref": "@lens_public"}, headers=headers
    ).json()
    assert (again["fetched"], again["watermark"]) == (0, 25)

    meta = client.get(
        "/v1/sources/by-ref", params={"source_ref": "@lens_public"}, headers=headers
    ).json()
    assert meta["last_synced_at"] == body["last_synced_at"]


def test_sync_in_steps_with_limit(client: TestClient, auth: Auth) -> None:
    headers = auth("sources.write")
    step = client.post(
        "/v1/sources/by-ref/sync", json={"source_ref": "@lens_public", "limit": 10}, headers=headers
    ).json()
    assert (step["fetched"], step["watermark"], step["complete"]) == (10, 10, False)
    rest = client.post(
        "/v1/sources/by-ref/sync",
        json={"source_ref": "@lens_public", "limit": 100},
        headers=headers,
    ).json()
    assert (rest["fetched"], rest["watermark"], rest["complete"]) == (15, 25, True)
    assert rest["message_count"] == 25


def test_long_floodwait_is_503_with_retry_after_and_keeps_progress(
    client: TestClient, fake_messenger: Any, auth: Auth
) -> None:
    fake_messenger.flood_after = 7
    fake_messenger.flood_seconds = 900
    headers = auth("sources.write", "sources.read")
    response = client.post(
        "/v1/sources/by-ref/sync", json={"source_ref": "@lens_public"}, headers=headers
    )
    assert response.status_code == 503
    assert response.headers["retry-after"] == "900"
    assert response.headers["content-type"] == "application/problem+json"
    meta = client.get(
        "/v1/sources/by-ref", params={"source_ref": "@lens_public"}, headers=headers
    ).json()
    assert meta["message_count"] == 7


def test_sync_of_a_source_the_messenger_lacks_is_404(client: TestClient, auth: Auth) -> None:
    response = client.post(
        "/v1/sources/by-ref/sync",
        json={"source_ref": "@no_such_chan"},
        headers=auth("sources.write"),
    )
    assert response.status_code == 404


def test_sync_without_live_credentials_is_503(app: FastAPI, auth: Auth) -> None:
    del app.dependency_overrides[get_messenger_client_factory]  # the real Telethon client factory
    with TestClient(app) as client:
        response = client.post(
            "/v1/sources/by-ref/sync",
            json={"source_ref": "@lens_public"},
            headers=auth("sources.write"),
        )
    assert response.status_code == 503
    assert "MLENS_MESSENGER_API_ID" in response.json()["detail"]
    assert "retry-after" not in response.headers
