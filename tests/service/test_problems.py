"""Every non-2xx answer is application/problem+json: 404, 405, 413, 422, 500 and the table."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from service.problems import STATUS_BY_ERROR, status_for
from toolkit import errors

PROBLEM = "application/problem+json"


class Echo(BaseModel):
    text: str


@pytest.fixture
def probe(app: FastAPI) -> Iterator[TestClient]:
    """The app plus test-only routes: one that reads a JSON body, one per failure."""

    @app.post("/_test/echo")
    def echo(body: Echo) -> dict[str, int]:
        return {"length": len(body.text)}

    @app.get("/_test/crash")
    def crash() -> None:
        raise RuntimeError("secret internal state /srv/db")

    @app.get("/_test/raise/{index}")
    def raise_error(index: int) -> None:
        raise ERRORS[index][0]

    with TestClient(app) as test_client:
        yield test_client


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["title"]
    assert body["type"]
    assert body["instance"] == response.request.url.path
    return body


def test_unknown_route_is_a_404_problem(client: TestClient) -> None:
    body = assert_problem(client.get("/v1/nothing/here"), 404)
    assert body["type"] == "about:blank"
    assert body["title"] == "Not Found"


def test_wrong_method_is_a_405_problem_with_allow(client: TestClient) -> None:
    response = client.delete("/v1/sources/by-ref")
    assert_problem(response, 405)
    assert response.headers["allow"] == "GET"


def test_body_over_the_limit_by_content_length_is_413(probe: TestClient) -> None:
    big = b'{"text": "' + b"x" * 70_000 + b'"}'
    response = probe.post("/_test/echo", content=big, headers={"Content-Type": "application/json"})
    body = assert_problem(response, 413)
    assert "65536" in body["detail"]


def _chunks(total: int, size: int = 4096) -> Iterator[bytes]:
    yield b'{"text": "'
    sent = 0
    while sent < total:
        yield b"x" * min(size, total - sent)
        sent += size
    yield b'"}'


def test_chunked_body_over_the_limit_is_413(probe: TestClient) -> None:
    # A generator body has no Content-Length: the middleware must count what streams.
    response = probe.post(
        "/_test/echo", content=_chunks(70_000), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert_problem(response, 413)


def test_chunked_body_under_the_limit_passes(probe: TestClient) -> None:
    response = probe.post(
        "/_test/echo", content=_chunks(60_000), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json() == {"length": 60_000}


def test_413_comes_before_authentication(client: TestClient) -> None:
    response = client.post("/v1/sources/by-ref/sync", content=b"x" * 70_000)
    assert_problem(response, 413)


def test_validation_errors_name_each_failing_field(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    response = client.post(
        "/v1/sources/by-ref/sync",
        json={"source_ref": "t.me/+invite", "limit": 0},
        headers=auth("sources.write"),
    )
    body = assert_problem(response, 422)
    failing = {(e["location"], e["field"]): e for e in body["errors"]}
    assert set(failing) == {("body", "source_ref"), ("body", "limit")}
    assert "invite" in failing[("body", "source_ref")]["message"]
    assert failing[("body", "limit")]["type"] == "greater_than_equal"
    assert "source_ref" in body["detail"]
    assert "limit" in body["detail"]


def test_missing_query_parameter_is_named(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    body = assert_problem(client.get("/v1/sources/by-ref", headers=auth("sources.read")), 422)
    assert body["errors"] == [
        {"field": "source_ref", "location": "query", "message": "Field required", "type": "missing"}
    ]


def test_malformed_json_is_a_422_problem(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    headers = {**auth("sources.write"), "Content-Type": "application/json"}
    response = client.post("/v1/sources/by-ref/sync", content=b'{"source_ref": ', headers=headers)
    body = assert_problem(response, 422)
    assert body["errors"][0]["type"] == "json_invalid"
    assert body["errors"][0]["location"] == "body"


def test_unexpected_error_is_a_500_problem_without_internals(
    probe: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="service"):
        response = probe.get("/_test/crash")
    body = assert_problem(response, 500)
    assert "secret" not in response.text
    assert "Traceback" not in response.text
    assert "RuntimeError" not in response.text
    assert body["detail"] == "An unexpected error occurred; it has been logged."
    # ...but the log has all of it.
    (record,) = [r for r in caplog.records if r.name == "service"]
    assert record.exc_info is not None
    assert "secret internal state" in str(record.exc_info[1])


ERRORS: list[tuple[errors.ToolkitError, int, dict[str, str]]] = [
    (errors.InvalidRequest("limit is too big", field="limit"), 422, {}),
    (errors.InvalidWeights("weights must not all be zero", field="weights"), 422, {}),
    (errors.UnsupportedLanguage("no such language", field="language"), 422, {}),
    (errors.ImportFormatError("truncated at byte 12"), 422, {}),
    (errors.SourceNotFound("no source @x"), 404, {}),
    (errors.ApiKeyNotFound("no key 9"), 404, {}),
    (errors.RateLimited("slow down", retry_after=2.2), 429, {"retry-after": "3"}),
    (errors.UpstreamRateLimited("LLM said 429", retry_after=30), 503, {"retry-after": "30"}),
    (errors.UpstreamTimeout("LLM timed out"), 504, {}),
    (errors.UpstreamInvalidOutput("not JSON twice"), 502, {}),
    (errors.UpstreamError("LLM 500"), 502, {}),
    (errors.ConfigError("live sync is not configured"), 503, {}),
    (errors.StoreError("cannot open /srv/secret/mlens.sqlite3"), 503, {}),
    (errors.StoreFull("no space left under /srv/secret"), 507, {}),
    (errors.DeadlineExceeded("stopped after 30 s"), 503, {}),
    (errors.AuthenticationError("bad key"), 401, {}),
    (errors.PermissionDenied("no scope", scope="search.read"), 403, {}),
]


@pytest.mark.parametrize(
    ("index", "status", "headers"),
    [(i, status, headers) for i, (_, status, headers) in enumerate(ERRORS)],
    ids=[type(e).__name__ for e, _, _ in ERRORS],
)
def test_toolkit_errors_map_through_the_table(
    probe: TestClient, index: int, status: int, headers: dict[str, str]
) -> None:
    error = ERRORS[index][0]
    body = assert_problem(probe.get(f"/_test/raise/{index}"), status)
    response = probe.get(f"/_test/raise/{index}")
    for name, value in headers.items():
        assert response.headers[name] == value
    assert body["title"] == error.title
    assert body["type"].startswith("urn:message-lens:problem:")
    if isinstance(error, errors.StoreError):
        assert "/srv/secret" not in response.text  # server paths stay in the log
    else:
        assert body["detail"] == error.message
    if isinstance(error, errors.InvalidRequest):
        assert body["errors"][0]["field"] == error.field


def test_every_toolkit_error_class_has_a_deliberate_status() -> None:
    # A new class that inherits no table entry would fall back to a 500: decide instead.
    def subclasses(cls: type[errors.ToolkitError]) -> list[type[errors.ToolkitError]]:
        return [cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))]

    for cls in subclasses(errors.ToolkitError):
        if cls is errors.ToolkitError or cls.__module__ != "toolkit.errors":
            continue
        error = cls.__new__(cls)
        assert status_for(error) != 500, cls.__name__
    assert STATUS_BY_ERROR[errors.ToolkitError] == 500


def test_health_needs_no_key(client: TestClient, sources: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["sources"] == 2
    assert body["messages"] == 8  # the service message is not counted
    assert body["version"]
