"""Every invalid request is a 4xx problem on the published schema (issue 11, item 2).

Datetimes that overflow in UTC, text UTF-8 cannot carry, JSON of the wrong type, bodies
that are not UTF-8 or nest too deep, an empty body: each a 422 naming its ``field``.
Authentication is answered before the body is looked at, on every route.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from service.deps import get_messenger_client_factory
from service.routing import MAX_JSON_DEPTH

PROBLEM = "application/problem+json"
Auth = Callable[..., dict[str, str]]
SEARCH = "/v1/search/messages"
CHAT = "/v1/summaries/chat"
SEARCH_BODY = {"source_ref": "@lens_public", "query": "post"}
CHAT_BODY = {
    "source_ref": "t.me/c/1987654321",
    "started_at": "2024-03-01T00:00:00Z",
    "ended_at": "2024-03-02T00:00:00Z",
    "language": "en",
}


def fields_of(response: Any, status: int = 422) -> set[str]:
    """The ``field`` of every ``errors`` item of a problem answer (each must have one)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    return {item["field"] for item in body["errors"]}


def raw(client: TestClient, path: str, content: bytes, headers: dict[str, str]) -> Any:
    return client.post(
        path, content=content, headers={**headers, "Content-Type": "application/json"}
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("period_to", "9999-12-31T23:59:59-14:00"),
        ("period_from", "0001-01-01T00:00:00+14:00"),
    ],
)
def test_search_datetimes_out_of_range_are_422(
    client: TestClient, auth: Auth, sources: Any, field: str, value: str
) -> None:
    response = client.post(SEARCH, json={**SEARCH_BODY, field: value}, headers=auth())
    assert fields_of(response) == {field}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("ended_at", "9999-12-31T23:59:59-14:00"),
        ("started_at", "0001-01-01T00:00:00+14:00"),
    ],
)
def test_summary_datetimes_out_of_range_are_422(
    client: TestClient, auth: Auth, sources: Any, field: str, value: str
) -> None:
    response = client.post(CHAT, json={**CHAT_BODY, field: value}, headers=auth())
    assert field in fields_of(response)


def test_a_period_at_the_calendars_edge_in_the_sources_zone_is_422(
    client: TestClient, auth: Auth, sources: Any, store: Any
) -> None:
    """``0001-01-01Z`` is in year 0 at -05:00, the zone a summary names its period in."""
    private = sources.private
    store.upsert_source(
        title=private.title, kind=private.kind, internal_id=private.internal_id, timezone="-05:00"
    )
    body = {**CHAT_BODY, "started_at": "0001-01-01T00:00:00Z"}
    response = client.post(CHAT, json=body, headers=auth())
    assert fields_of(response) == {"started_at"}
    assert "time zone -05:00" in response.text


def test_extreme_datetimes_inside_the_range_are_served(
    client: TestClient, auth: Auth, sources: Any
) -> None:
    body = {
        **SEARCH_BODY,
        "period_from": "0001-01-01T00:00:00Z",
        "period_to": "9999-12-31T23:59:59Z",
    }
    response = client.post(SEARCH, json=body, headers=auth())
    assert response.status_code == 200, response.text


def test_lone_surrogate_is_422_and_the_answer_is_written(client: TestClient, auth: Auth) -> None:
    # json.dumps writes the lone surrogate as the escape "\udcff", as an attacker would.
    content = json.dumps({**CHAT_BODY, "language": "\udcff"}).encode()
    response = raw(client, CHAT, content, auth())
    assert fields_of(response) == {"language"}
    assert "surrogate" in response.json()["errors"][0]["message"]


def test_problem_answers_can_quote_any_text(client: TestClient, auth: Auth) -> None:
    content = json.dumps({**CHAT_BODY, "language": "x\udcffy"}).encode()
    response = raw(client, CHAT, content, auth())
    response.content.decode("utf-8")  # strict: the answer itself is valid UTF-8
    assert fields_of(response) == {"language"}


@pytest.mark.parametrize(
    ("path", "extra", "field"),
    [
        (SEARCH, {"limit": True}, "limit"),
        (SEARCH, {"limit": 5.0}, "limit"),
        (SEARCH, {"limit": "5"}, "limit"),
        (SEARCH, {"scan_messages_limit": False}, "scan_messages_limit"),
        (SEARCH, {"explain": "yes"}, "explain"),
        (SEARCH, {"explain": 1}, "explain"),
        (SEARCH, {"weights": {"short_floor": False}}, "weights.short_floor"),
        (SEARCH, {"weights": {"semantic": "0.5"}}, "weights.semantic"),
        ("/v1/sources/by-ref/sync", {"limit": True}, "limit"),
        (
            "/v1/sources/by-ref/summary",
            {"language": "en", "messages_limit": True},
            "messages_limit",
        ),
    ],
)
def test_json_types_are_strict(
    client: TestClient, auth: Auth, sources: Any, path: str, extra: dict[str, Any], field: str
) -> None:
    response = client.post(path, json={**SEARCH_BODY, **extra}, headers=auth())
    assert field in fields_of(response)


def test_integers_and_booleans_as_json_types_are_accepted(
    client: TestClient, auth: Auth, sources: Any
) -> None:
    body = {**SEARCH_BODY, "limit": 3, "explain": True, "weights": {"semantic": 1}}
    assert client.post(SEARCH, json=body, headers=auth()).status_code == 200


def test_body_that_is_not_utf8_is_422_naming_the_body(client: TestClient, auth: Auth) -> None:
    content = b'{"source_ref": "@lens_public", "query": "\xff\xfe"}'
    assert fields_of(raw(client, SEARCH, content, auth())) == {"body"}


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 2, 20_000])
def test_json_nested_too_deep_is_422_naming_the_body(
    client: TestClient, auth: Auth, depth: int
) -> None:
    nested = "[" * depth + "]" * depth
    content = f'{{"source_ref": "@lens_public", "query": "q", "x": {nested}}}'.encode()
    response = raw(client, SEARCH, content, auth())
    assert fields_of(response) == {"body"}
    assert response.json()["errors"][0]["type"] == "json_too_deep"


def test_a_number_of_5000_digits_is_422_naming_the_body(client: TestClient, auth: Auth) -> None:
    content = b'{"source_ref": "@lens_public", "query": "q", "limit": 1' + b"0" * 5000 + b"}"
    assert fields_of(raw(client, SEARCH, content, auth())) == {"body"}


def test_empty_body_names_the_body(client: TestClient, auth: Auth) -> None:
    response = client.post(SEARCH, headers=auth())
    assert fields_of(response) == {"body"}


def test_missing_fields_are_named(client: TestClient, auth: Auth) -> None:
    response = client.post(SEARCH, json={}, headers=auth())
    assert fields_of(response) == {"source_ref", "query"}


@pytest.mark.parametrize(
    "content", [b"{not json", b"\xff\xfe", b"[" * 5000, b'{"language": "\\udcff"}']
)
def test_bad_bodies_without_a_key_are_401_on_every_route(
    client: TestClient, protected_route: tuple[str, str, str, Any], content: bytes
) -> None:
    method, path, _, _ = protected_route
    response = client.request(
        method, path, content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM


def test_sync_validates_before_it_checks_its_configuration(app: FastAPI, auth: Auth) -> None:
    del app.dependency_overrides[get_messenger_client_factory]  # no live credentials
    with TestClient(app) as client:
        invalid = client.post(
            "/v1/sources/by-ref/sync", json={"source_ref": "", "limit": 0}, headers=auth()
        )
        assert fields_of(invalid) == {"source_ref", "limit"}
        valid = client.post(
            "/v1/sources/by-ref/sync", json={"source_ref": "@lens_public"}, headers=auth()
        )
        assert valid.status_code == 503


@pytest.mark.parametrize(
    "ref", ["https://[t.me/abc", "tg://[resolve", "t.me/lens_public/\u00b2", "@" + "a" * 5000]
)
def test_malformed_refs_are_422_naming_the_ref(client: TestClient, auth: Auth, ref: str) -> None:
    response = client.post(SEARCH, json={**SEARCH_BODY, "source_ref": ref}, headers=auth())
    assert fields_of(response) == {"source_ref"}
    assert len(response.text) < 2000  # the problem quotes no 5000-character ref whole
    got = client.get("/v1/sources/by-ref", params={"source_ref": ref}, headers=auth())
    assert fields_of(got) == {"source_ref"}
