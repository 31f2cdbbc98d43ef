"""Through ``/v1``: summaries take turns (``MLENS_SUMMARY_CONCURRENCY``). With every turn
held by a slow LLM endpoint, the other summaries wait ``MLENS_SUMMARY_WAIT_SECONDS`` and
answer 503 + ``Retry-After`` without asking the endpoint; none hangs, and searches sent
meanwhile are answered."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, summary_json, with_llm
from fastapi.testclient import TestClient
from summary_data import seed

from service.app import create_app
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.store import SQLiteStore

PERIOD = {"started_at": "2024-05-06T00:00:00Z", "ended_at": "2024-05-13T00:00:00Z"}
SUMMARIES = 6
SLOTS = 2


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    gate = threading.Event()
    with FakeLLM(handler=lambda _r: _held_reply(gate)) as server:
        server.gate = gate  # type: ignore[attr-defined]
        yield server
        gate.set()


def _held_reply(gate: threading.Event) -> Reply:
    # The endpoint answers once the test has seen the waiting summaries refused: the
    # turns stay held by requests in flight, whatever the machine's speed.
    gate.wait(20)
    return Reply(content=summary_json("Release 2.4 ships on Thursday.", [], ["1"]))


@pytest.mark.slow
def test_summaries_beyond_the_turns_are_503_with_retry_after_and_searches_answer(
    settings: Settings, embedder: Embedder, llm: FakeLLM
) -> None:
    configured = with_llm(
        settings,
        llm,
        llm_timeout=30.0,
        llm_max_retries=0,
        summary_concurrency=SLOTS,
        summary_wait_seconds=0.2,
        request_timeout_seconds=60.0,
    )
    store = SQLiteStore(":memory:")
    seed(store)
    token, _ = create_api_key(store, name="t", scopes=["summary.run", "search.read"])
    app = create_app(configured, store=store, embedder=embedder)
    headers = {"Authorization": f"Bearer {token}"}
    languages = ["en", "de", "fr", "es", "it", "pt"][:SUMMARIES]  # no cache hit among them

    def summary(language: str) -> Any:
        body = {"source_ref": "@platform_team", "language": language, **PERIOD}
        return client.post("/v1/summaries/chat", json=body, headers=headers)

    def search() -> Any:
        body = {"source_ref": "@platform_team", "query": "flaky Redis test"}
        return client.post("/v1/search/messages", json=body, headers=headers)

    try:
        with TestClient(app) as client, ThreadPoolExecutor(SUMMARIES) as pool:
            search().raise_for_status()  # the embedder and search cache are warm
            futures = [pool.submit(summary, language) for language in languages]
            # The summaries without a turn come back while the others hold theirs.
            wait(futures, timeout=30, return_when=FIRST_COMPLETED)
            give_up = time.monotonic() + 30
            while sum(f.done() for f in futures) < SUMMARIES - SLOTS:
                assert time.monotonic() < give_up, "summaries waiting for a turn hang"
                time.sleep(0.02)
            searches = [search() for _ in range(3)]
            while len(llm.requests) < SLOTS:  # the holders' requests are on their way
                assert time.monotonic() < give_up, "a summary holding a turn never asked"
                time.sleep(0.02)
            assert len(llm.requests) == SLOTS  # only the summaries with a turn asked
            llm.gate.set()  # type: ignore[attr-defined]
            answers = [future.result(timeout=30) for future in futures]
    finally:
        llm.gate.set()  # type: ignore[attr-defined]
        store.close()
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * SLOTS + [503] * (SUMMARIES - SLOTS)
    for answer in answers:
        if answer.status_code == 503:
            assert answer.headers["content-type"] == "application/problem+json"
            assert int(answer.headers["retry-after"]) >= 1
            problem = answer.json()
            assert problem["type"] == "urn:message-lens:problem:busy"
            assert f"all {SLOTS} turns for summaries are taken" in problem["detail"]
    assert [r.status_code for r in searches] == [200, 200, 200]
    assert all(r.json()["items"] for r in searches)
    assert len(llm.requests) == SLOTS  # a refused summary never reached the endpoint
