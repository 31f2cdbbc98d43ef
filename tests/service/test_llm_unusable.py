"""Through ``/v1``: an unusable LLM answer is a 502 problem naming why (never a 500), a
trickling endpoint ends within the deadline, and ``MLENS_LLM_FALLBACK=extractive``
answers with the extractive engine, saying so in the engine header."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, summary_json
from fastapi.testclient import TestClient
from summary_data import NO_PACK

from toolkit.embeddings import Embedder

PROBLEM = "application/problem+json"
CHAT = "/v1/summaries/chat"
PERIOD = {"started_at": "2024-05-06T00:00:00Z", "ended_at": "2024-05-13T00:00:00Z"}
Client = Callable[..., TestClient]


@pytest.fixture
def app_state(embedder: Embedder) -> dict[str, Any]:
    return {"embedder": embedder}


def _chat(client: TestClient, language: str = "en") -> Any:
    return client.post(CHAT, json={"source_ref": "@platform_team", "language": language, **PERIOD})


BAD_JSON = '{"summary": ' + "[" * 50_000 + "]" * 50_000 + "}"
BIGINT = '{"summary": "s", "sections": [], "important_message_ids": [' + "9" * 5000 + "]}"
UNUSABLE = {
    "html-page": (
        [Reply(body=b"<html><h1>502 Bad Gateway</h1></html>", content_type="text/html")],
        "not a chat completion",
    ),
    "html-as-json": ([Reply(body=b"<!doctype html><p>hi</p>")], "not a chat completion"),
    "no-choices": ([Reply(body={"choices": []})], "not a chat completion"),
    "empty-content": ([Reply(content="")], "no content"),
    "invalid-json-twice": (
        [Reply(content="Sure!"), Reply(content='{"summary": cut}')],
        "not valid JSON",
    ),
    "schema-mismatch": ([Reply(content='{"sections": 3}')] * 2, "does not match the schema"),
    "nested-json": ([Reply(content=BAD_JSON)] * 2, "not usable JSON"),
    "bigint": ([Reply(content=BIGINT)] * 2, "not usable JSON"),
    "oversized": ([Reply(content=summary_json("x" * 300_000))], "too large"),
}


@pytest.mark.parametrize(("replies", "why"), list(UNUSABLE.values()), ids=list(UNUSABLE))
def test_an_unusable_answer_is_a_502_problem_naming_why(
    llm_clients: Client, llm: FakeLLM, replies: list[Reply], why: str
) -> None:
    llm.push(*replies)
    response = _chat(llm_clients())
    assert response.status_code == 502, response.text
    assert response.headers["content-type"] == PROBLEM
    assert why in response.json()["detail"]


TRICKLES = {
    "504-at-the-request-timeout": ({"llm_timeout": 1.0}, 504, None),
    "503-at-the-service-deadline": (
        {"llm_timeout": 30.0, "summary_timeout_seconds": 1.0},
        503,
        "deadline-exceeded",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "status", "kind"), list(TRICKLES.values()), ids=list(TRICKLES)
)
def test_a_trickling_endpoint_ends_at_its_deadline(
    llm_clients: Client, llm: FakeLLM, overrides: dict[str, float], status: int, kind: str | None
) -> None:
    llm.push(Reply(content=summary_json("a" * 500), trickle=0.1))
    started = time.monotonic()
    response = _chat(llm_clients(**overrides))
    assert response.status_code == status
    if kind is not None:
        assert response.json()["type"].endswith(kind)
    assert time.monotonic() - started < 3.0
    assert llm.hung_up.wait(2)


@pytest.mark.slow
def test_the_extractive_fallback_answers_and_says_so(llm_clients: Client, llm: FakeLLM) -> None:
    llm.push(Reply(content="Sure!"), Reply(content="Still not JSON"))
    client = llm_clients(llm_fallback="extractive")
    response = _chat(client)
    assert response.status_code == 200
    assert response.headers["x-summary-engine"] == "extractive (llm fallback: invalid output)"
    body = response.json()
    assert body["summary"]
    assert set(body["important_messenger_message_ids"]) <= {str(i) for i in range(1, 21)}
    # Not cached as the LLM's answer: once the endpoint answers, its summary is served.
    llm.push(Reply(content=summary_json("The LLM is back.")))
    again = _chat(client)
    assert again.headers["x-summary-engine"] == "llm"
    assert again.json()["summary"] == "The LLM is back."


@pytest.mark.slow
def test_the_fallback_covers_a_failing_endpoint_too(llm_clients: Client, llm: FakeLLM) -> None:
    llm.push(Reply(status=500, body={"error": {"message": "boom"}}))
    response = _chat(llm_clients(llm_fallback="extractive"))
    assert response.status_code == 200
    assert response.headers["x-summary-engine"] == "extractive (llm fallback: endpoint error)"


def test_no_fallback_where_the_extractive_engine_has_no_pack(
    llm_clients: Client, llm: FakeLLM
) -> None:
    llm.push(Reply(content="Sure!"), Reply(content="Still not JSON"))
    response = _chat(llm_clients(llm_fallback="extractive"), language=NO_PACK)
    assert response.status_code == 502
    assert "stayed invalid" in response.json()["detail"]
