"""``/mcp``: the MCP tools over streamable HTTP, with the SDK's own client, behind API keys.

The app is the one ``mlens serve`` serves (``cli.asgi``: the service composed with the
tools, which the service itself does not import).

The client talks to the app in process (``httpx2``'s ASGI transport, the app's lifespan
entered by the test), so the whole middleware stack of /v1 is in the way, as in serving.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from deadline_apps import CheckingSearcher, hasty_app
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_calls import EVERY_TOOL
from uvicorn.importer import import_from_string

import service.app
from cli.asgi import APP, create_app
from mcp_face import TOOL_SCOPES
from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import DeadlineExceeded

LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def app_state(embedder: Embedder) -> dict[str, Any]:
    """The session's embedder (search needs one; loading another costs seconds)."""
    return {"embedder": embedder}


def with_client(
    app: FastAPI, token: str, work: Callable[[Client], Awaitable[Any]], *, mode: str = "auto"
) -> Any:
    """Run ``work`` with an MCP client of ``app``'s /mcp sending ``token``."""

    async def session() -> Any:
        async with app.router.lifespan_context(app):
            http = httpx2.AsyncClient(
                transport=httpx2.ASGITransport(app=app),
                base_url="http://testserver",
                headers={"Authorization": f"Bearer {token}"},
            )
            async with http:
                transport = streamable_http_client("http://testserver/mcp", http_client=http)
                async with Client(transport, mode=mode) as client:  # type: ignore[arg-type]
                    return await work(client)

    return asyncio.run(session())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
def test_a_client_lists_and_calls_every_tool(
    app: FastAPI, sources: Any, make_key: Callable[..., str], mode: str
) -> None:
    async def work(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        calls = {
            "list_sources": {},
            "list_topics": {"source_ref": "c/1987654321"},
            "search_messages": {"source_ref": "c/1987654321", "query": "hello", "limit": 2},
            "summarize_period": {
                "source_ref": "t.me/c/1987654321",
                "started_at": "2024-03-01",
                "ended_at": "2024-03-01",
            },
            "summarize_source": {"source_ref": "@lens_public", "language": "ru"},
            "search_all": {"query": "hello post", "limit": 20},
            "unknown": {"source_ref": "@lens_missing", "query": "hello"},
            "bad_period": {
                "source_ref": "@lens_public",
                "started_at": "2024-03-02",
                "ended_at": "2024-03-01T00:00:00",
            },
        }
        results = {"tools": [t.name for t in listed.tools]}
        for name, arguments in calls.items():
            tool = {"unknown": "search_messages", "bad_period": "summarize_period"}.get(name, name)
            results[name] = await client.call_tool(tool, arguments)
        return results

    got = with_client(app, make_key(), work, mode=mode)
    assert got["tools"] == EVERY_TOOL
    refs = [s["source_ref"] for s in got["list_sources"].structured_content["items"]]
    assert sorted(refs) == ["@lens_public", "c/1987654321"]
    assert got["list_topics"].structured_content == {"source_ref": "c/1987654321", "items": []}
    hits = got["search_messages"].structured_content["items"]
    assert len(hits) == 2
    assert {h["source_ref"] for h in hits} == {"c/1987654321"}
    assert all(h["text"].startswith("hello") for h in hits)
    period = got["summarize_period"].structured_content
    assert period["source_ref"] == "t.me/c/1987654321"
    assert period["summary"]
    assert period["engine"] == "extractive"
    assert got["summarize_source"].structured_content["language"] == "ru"
    everywhere = got["search_all"].structured_content["items"]
    assert {h["source_ref"] for h in everywhere} == {"@lens_public", "c/1987654321"}
    for name in ("unknown", "bad_period"):
        assert got[name].is_error
    assert got["unknown"].content[0].text.startswith("no source @lens_missing in the store")
    assert "ended_at" in got["bad_period"].content[0].text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_key_sees_and_runs_only_the_tools_of_its_scopes(
    app: FastAPI, sources: Any, make_key: Callable[..., str], mode: str
) -> None:
    async def work(client: Client) -> tuple[list[str], Any, Any]:
        listed = await client.list_tools()
        refused = await client.call_tool("list_sources", {})
        allowed = await client.call_tool(
            "search_messages", {"source_ref": "@lens_public", "query": "post"}
        )
        return [t.name for t in listed.tools], refused, allowed

    names, refused, allowed = with_client(app, make_key("search.read"), work, mode=mode)
    assert names == ["search_messages", "search_all"]
    assert refused.is_error
    assert refused.content[0].text == "this API key lacks the scope 'sources.read'"
    assert not allowed.is_error
    assert allowed.structured_content["items"]


@pytest.mark.parametrize(
    ("authorization", "status", "detail"),
    [
        (None, 401, "an API key is required"),
        ("Basic abc", 401, "Bearer <API key>"),
        ("Bearer mlk_nope_nope", 401, "API key"),
    ],
)
def test_no_or_a_wrong_key_is_a_401_problem(
    client: TestClient, authorization: str | None, status: int, detail: str
) -> None:
    headers = {**ACCEPT, **({"Authorization": authorization} if authorization else {})}
    response = client.post("/mcp", json=LIST_TOOLS, headers=headers)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert detail in response.json()["detail"]


def test_a_key_without_any_tool_scope_is_a_403_problem(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    response = client.post("/mcp", json=LIST_TOOLS, headers={**ACCEPT, **auth("sources.write")})
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    assert "insufficient_scope" in response.headers["www-authenticate"]


def test_the_body_limit_and_the_openapi_document_hold_for_mcp(
    client: TestClient, auth: Callable[..., dict[str, str]], settings: Any
) -> None:
    big = {**LIST_TOOLS, "params": {"pad": "x" * settings.service.max_body_bytes}}
    response = client.post("/mcp", json=big, headers={**ACCEPT, **auth()})
    assert response.status_code == 413
    assert response.headers["content-type"] == "application/problem+json"
    assert "/mcp" not in client.get("/openapi.json").json()["paths"]


def test_a_plain_json_rpc_post_is_answered_as_json(
    client: TestClient, auth: Callable[..., dict[str, str]]
) -> None:
    response = client.post("/mcp", json=LIST_TOOLS, headers={**ACCEPT, **auth("sources.read")})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    names = [t["name"] for t in response.json()["result"]["tools"]]
    assert names == [n for n in EVERY_TOOL if TOOL_SCOPES[n] == "sources.read"]
    assert "list_sources" in names
    assert "search_messages" not in names  # a tool of another scope is not listed


def test_a_tool_past_the_deadline_is_a_503_problem_and_its_work_stops(
    settings: Settings,
) -> None:
    worker = CheckingSearcher()
    app, token = hasty_app(settings, worker, 0.3)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search_messages", "arguments": {"source_ref": "@lens_x", "query": "q"}},
    }
    with TestClient(app) as client:
        headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
        response = client.post("/mcp", json=call, headers=headers)
        assert response.status_code == 503
        assert response.json()["type"].endswith("deadline-exceeded")
        assert worker.stopped.wait(10)  # not after its 20 s: the tool's thread stopped
    assert isinstance(worker.error, DeadlineExceeded)


def test_the_keys_rate_limit_holds_for_mcp(settings: Settings) -> None:
    limited = settings.replace(service={"rate_limit_per_minute": 6.0, "rate_limit_burst": 2})
    app = create_app(limited)
    token, _ = create_api_key(state_of(app).workspace.store, name="k", scopes={"sources.read"})
    headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
    with TestClient(app) as client:
        statuses = [client.post("/mcp", json=LIST_TOOLS, headers=headers) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[2].headers["content-type"] == "application/problem+json"
    assert int(statuses[2].headers["retry-after"]) >= 1


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_only_post_is_served_the_rest_is_a_405_problem(
    client: TestClient, auth: Callable[..., dict[str, str]], method: str
) -> None:
    # Stateless: no SSE stream to open with GET, no session to end with DELETE.
    response = client.request(method, "/mcp", headers={**ACCEPT, **auth()})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.headers["content-type"] == "application/problem+json"


def test_the_served_app_mounts_the_tools_and_the_bare_service_does_not(
    settings: Settings,
) -> None:
    served = import_from_string(APP)  # what uvicorn's workers build (``mlens serve``)
    assert served is create_app
    bare = service.app.create_app(settings)
    token, _ = create_api_key(state_of(bare).workspace.store, name="k", scopes={"search.read"})
    with TestClient(bare) as client:
        response = client.post(
            "/mcp", json=LIST_TOOLS, headers={**ACCEPT, "Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 404
