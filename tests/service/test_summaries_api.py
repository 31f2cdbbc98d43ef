"""The three summary endpoints: shapes, the engine header, bounds, and upstream failures.

The auth matrix (401/403/2xx per scope) runs over these routes from ``PROTECTED_ROUTES``
in ``conftest.py``; here a key has ``summary.run`` unless a test says otherwise.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, summary_json
from fastapi.testclient import TestClient
from summary_data import NO_PACK, seed

from service.app import SUMMARY_PATHS
from service.middleware import DeadlineMiddleware
from toolkit.embeddings import Embedder
from toolkit.store.base import MessageStore
from toolkit.summarize.period_wording import find_period_wording

PROBLEM = "application/problem+json"
CHAT = "/v1/summaries/chat"
CHANNEL = "/v1/summaries/channel"
SOURCE = "/v1/sources/by-ref/summary"
PERIOD = {"started_at": "2024-05-06T00:00:00Z", "ended_at": "2024-05-13T00:00:00Z"}
TEAM = {"source_ref": "@platform_team", "language": "en"}
Auth = Callable[..., dict[str, str]]
Ask = Callable[[str, dict[str, Any]], Any]


@pytest.fixture
def app_state(embedder: Embedder) -> dict[str, Any]:
    """Share the session's embedder instead of loading one per app."""
    return {"embedder": embedder}


@pytest.fixture
def seeded(store: MessageStore) -> None:
    seed(store)


@pytest.fixture
def ask(client: TestClient, auth: Auth) -> Ask:
    """``ask(path, body)``: POST ``body`` to ``path`` with a ``summary.run`` key."""
    headers = auth("summary.run")
    return lambda path, body: client.post(path, json=body, headers=headers)


def _problem_field(response: Any) -> set[str | None]:
    assert response.headers["content-type"] == PROBLEM
    return {e["field"] for e in response.json()["errors"]}


@pytest.mark.usefixtures("seeded")
@pytest.mark.slow
def test_chat_summary_has_the_contract_shape_and_engine_header(ask: Ask) -> None:
    body = {"source_ref": "https://t.me/platform_team", "language": "en", **PERIOD}
    response = ask(CHAT, body)
    assert response.status_code == 200
    assert response.headers["x-summary-engine"] == "extractive"
    data = response.json()
    contract = {"source_ref", "summary", "sections", "important_messenger_message_ids"}
    # Our additions, as every face answers a summary (toolkit.wire.SummaryOut).
    grounding = {"items_kept", "items_dropped", "items_rewritten", "items_offline"}
    ours = {"engine", "language", "messages_without_vector", "sampled", "summary_offline"}
    assert set(data) == contract | ours | grounding
    assert data["messages_without_vector"] == 0
    assert data["sampled"] is None  # it read every message of the window
    assert (data["engine"], data["language"]) == ("extractive", "en")
    assert data["source_ref"] == "https://t.me/platform_team"
    assert "Bob asks Alice" in data["summary"]
    # The contract's title and body, plus each section's kind and items (ids it rests on).
    assert all(set(s) == {"title", "body", "kind", "items"} for s in data["sections"])
    kinds = {"decisions", "open_questions", "plans", "links", "thread"}
    assert all(s["kind"] in kinds for s in data["sections"])
    for section in data["sections"]:
        for item in section["items"]:
            assert item["text"] in section["body"]
            cited = set(data["important_messenger_message_ids"])
            assert set(item["messenger_message_ids"]) <= cited
    assert all(isinstance(i, str) for i in data["important_messenger_message_ids"])
    # The ids are exactly the messages the text links to.
    text = data["summary"] + "".join(s["title"] + s["body"] for s in data["sections"])
    cited = set(re.findall(r"https://t\.me/platform_team/(\d+)", text))
    assert cited == set(data["important_messenger_message_ids"])


@pytest.mark.usefixtures("seeded")
@pytest.mark.slow
def test_channel_summary_in_russian(ask: Ask) -> None:
    body = {
        "source_ref": "@DB_weekly_ru",
        "language": "RU",
        "started_at": "2024-05-01T00:00:00+03:00",
        "ended_at": "2024-06-01T00:00:00",
    }
    response = ask(CHANNEL, body)
    assert response.status_code == 200
    data = response.json()
    assert data["source_ref"] == "@DB_weekly_ru"
    assert "канал «Базы данных» публикует пост: «" in data["summary"]
    assert data["sections"][0]["body"].splitlines()[0].startswith("12 публикаций, с 6 мая по ")


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("ref", ["@platform_team", "@db_weekly_ru", "t.me/c/1500000003"])
@pytest.mark.slow
def test_source_summary_has_no_period_wording(ask: Ask, ref: str, language: str) -> None:
    response = ask(SOURCE, {"source_ref": ref, "language": language})
    assert response.status_code == 200
    data = response.json()
    for text in [data["summary"]] + [f"{s['title']}\n{s['body']}" for s in data["sections"]]:
        assert find_period_wording(text) == [], text


@pytest.mark.usefixtures("seeded")
@pytest.mark.slow
def test_a_source_summary_reads_at_most_messages_limit_and_says_what_it_read(ask: Ask) -> None:
    response = ask(SOURCE, {**TEAM, "messages_limit": 6})
    assert response.status_code == 200
    data = response.json()
    read = re.search(
        r"This summary reads (\d+) of its (\d+) messages, (?:sampled from|all of) ", data["summary"]
    )
    assert read is not None, data["summary"]
    assert read.group(1) == "6"
    assert int(read.group(2)) > 6
    assert len(data["important_messenger_message_ids"]) <= 6
    assert "participants have written in it" in data["summary"]
    whole = ask(SOURCE, {**TEAM, "messages_limit": 5000}).json()
    assert "This summary reads" not in whole["summary"]  # every message: no sampling


@pytest.mark.usefixtures("seeded")
def test_an_empty_period_is_200_saying_so(ask: Ask) -> None:
    empty = {"started_at": "2030-01-01T00:00:00Z", "ended_at": "2030-01-02T00:00:00Z"}
    response = ask(CHAT, {**TEAM, **empty})
    assert response.status_code == 200
    assert response.json()["summary"].startswith("There are no messages from 2030-01-01")
    assert response.json()["sections"] == []


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("path", [CHAT, CHANNEL])
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"ended_at": "2024-05-06T00:00:00Z"}, "ended_at"),
        ({"ended_at": "2024-05-01T00:00:00Z"}, "ended_at"),
        ({"started_at": "yesterday"}, "started_at"),
        ({"started_at": 1714953600}, "started_at"),
        ({"language": "xx"}, "language"),
        ({"language": "english"}, "language"),
        ({"language": NO_PACK}, "language"),  # known, but the extractive engine cannot write it
        ({"source_ref": "t.me/+invite"}, "source_ref"),
        ({"source_ref": None}, "source_ref"),
    ],
)
def test_period_bounds_are_422_naming_the_field(
    ask: Ask, path: str, change: dict[str, Any], field: str
) -> None:
    body = {**TEAM, **PERIOD, **change}
    response = ask(path, body)
    assert response.status_code == 422
    assert field in _problem_field(response)


@pytest.mark.usefixtures("seeded")
def test_unsupported_language_says_what_it_can_write(ask: Ask) -> None:
    body = {"source_ref": "@platform_team", "language": NO_PACK, **PERIOD}
    detail = ask(CHAT, body).json()["detail"]
    assert "en (English), ru (Russian)" in detail
    assert "LLM endpoint" in detail


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize(
    ("change", "field", "status"),
    [
        ({"messages_limit": 0}, "messages_limit", 422),
        ({"messages_limit": 5001}, "messages_limit", 422),
        ({"messages_limit": "many"}, "messages_limit", 422),
        ({"language": "zz"}, "language", 422),
        ({"language": None}, "language", 422),
    ],
)
def test_source_summary_bounds(ask: Ask, change: dict[str, Any], field: str, status: int) -> None:
    body = {**TEAM, **change}
    response = ask(SOURCE, body)
    assert response.status_code == status
    assert field in _problem_field(response)


@pytest.mark.usefixtures("seeded")
@pytest.mark.slow
def test_source_summary_limits_are_inclusive(ask: Ask) -> None:
    for limit in (1, 5000):
        body = {**TEAM, "messages_limit": limit}
        assert ask(SOURCE, body).status_code == 200


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("path", [CHAT, CHANNEL, SOURCE])
def test_unknown_source_is_404(ask: Ask, path: str) -> None:
    body = {"source_ref": "@nobody_here", "language": "en", **PERIOD}
    response = ask(path, body)
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("path", [CHAT, CHANNEL, SOURCE])
def test_another_scope_is_403(client: TestClient, auth: Auth, path: str) -> None:
    body = {**TEAM, **PERIOD}
    response = client.post(path, json=body, headers=auth("search.read", "sources.read"))
    assert response.status_code == 403


# The LLM engine behind the service -------------------------------------------------------


@pytest.fixture
def llm_client(llm_clients: Callable[..., TestClient]) -> TestClient:
    """A client of an app whose LLM (``llm``) gets half a second to answer."""
    return llm_clients(llm_timeout=0.5)


def _chat(client: TestClient) -> Any:
    return client.post(CHAT, json={"source_ref": "@platform_team", "language": "de", **PERIOD})


@pytest.mark.slow
def test_llm_engine_answers_any_language_with_its_header(
    llm_client: TestClient, llm: FakeLLM
) -> None:
    sections = [
        ("Release", "Das Team bringt Release 2.4 am Donnerstag in Produktion.", ["12", "777"])
    ]
    sections += [("Freigabe", "Das Team bringt Release 2.4 am Donnerstag in Produktion.", ["12"])]
    llm.push(
        Reply(
            content=summary_json(
                "Das Team bringt Release 2.4 am Donnerstag nach dem Backfill in Produktion.",
                sections,
                ["12"],
            )
        )
    )
    response = _chat(llm_client)
    assert response.status_code == 200
    assert response.headers["x-summary-engine"] == "llm"
    # The line citing a foreign id is dropped (issue 29); the important are those cited.
    assert response.json()["important_messenger_message_ids"] == ["12"]


@pytest.mark.slow
def test_llm_stall_is_504_problem(llm_client: TestClient, llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("late"), delay=2.0))
    response = _chat(llm_client)
    assert response.status_code == 504
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["status"] == 504


def test_llm_rate_limit_is_503_with_retry_after(llm_client: TestClient, llm: FakeLLM) -> None:
    llm.push(Reply(status=429, body={"error": {"message": "quota"}}, headers={"retry-after": "12"}))
    response = _chat(llm_client)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "12"
    assert response.headers["content-type"] == PROBLEM


@pytest.mark.parametrize(
    "replies",
    [
        [Reply(status=500, body={"error": {"message": "boom"}})],
        [Reply(content="not json"), Reply(content='{"summary": ""}')],
    ],
    ids=["upstream-500", "invalid-twice"],
)
def test_other_llm_failures_are_502(
    llm_client: TestClient, llm: FakeLLM, replies: list[Reply]
) -> None:
    llm.push(*replies)
    response = _chat(llm_client)
    assert response.status_code == 502
    assert response.headers["content-type"] == PROBLEM


@pytest.mark.slow
def test_an_llm_request_past_the_request_deadline_is_abandoned(
    llm_clients: Callable[..., TestClient], llm: FakeLLM
) -> None:
    client = llm_clients(llm_timeout=10.0, llm_max_retries=2, summary_timeout_seconds=0.5)
    llm.handler = lambda request: Reply(content=summary_json("late"), delay=30.0)
    response = _chat(client)
    assert response.status_code == 503
    assert response.json()["type"].endswith("deadline-exceeded")
    # The worker thread's LLM request is closed at the deadline, not after the 10 s
    # request timeout, and no retry follows it. On a busy machine the messages'
    # embedding can outlast the 0.5 s deadline: then no LLM call starts.
    if not llm.hung_up.wait(5):
        assert llm.requests == []
    time.sleep(0.3)
    assert len(llm.requests) <= 1


@pytest.mark.slow
def test_summaries_run_under_their_own_deadline_and_searches_under_the_request_deadline(
    llm_clients: Callable[..., TestClient], llm: FakeLLM
) -> None:
    """An LLM on the same machine takes longer than a search should: a summary that needs
    1.5 s is answered although requests in general are abandoned after 1 s."""
    client = llm_clients(request_timeout_seconds=1.0, summary_timeout_seconds=20.0)
    llm.handler = lambda request: Reply(content=summary_json("patient"), delay=1.5)
    response = _chat(client)
    assert response.status_code == 200, response.text
    assert response.json()["summary"] == "patient"
    middleware = DeadlineMiddleware(
        client.app, seconds=1.0, long_seconds=20.0, long_paths=SUMMARY_PATHS
    )
    assert middleware.seconds_for("/v1/search/messages") == 1.0
    assert middleware.seconds_for("/v1/summaries/channel") == 20.0
    assert middleware.seconds_for("/v1/sources/by-ref/summary") == 20.0
    assert middleware.seconds_for("/mcp") == 20.0
