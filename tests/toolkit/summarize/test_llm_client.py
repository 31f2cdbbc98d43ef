"""The LLM client against endpoints that behave as real ones do: refusals of
``response_format`` with any status, ``max_tokens`` on every request, one deadline for
the whole request (a trickling endpoint included), and answers that cannot be used.

Driven through the real ``openai`` client against the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, message_texts, summary_json
from summary_data import START, in_period

from toolkit import deadline
from toolkit.embeddings import Embedder
from toolkit.errors import (
    DeadlineExceeded,
    UpstreamContextExceeded,
    UpstreamInvalidOutput,
    UpstreamTimeout,
)
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.prompts import SUMMARY_SCHEMA
from toolkit.summarize.pipeline import summarize_period

CHAT = [{"role": "user", "content": "Summarise."}]
TEAM = "@platform_team"
DAY = timedelta(days=1)
WINDOW = in_period(TEAM, START, START + DAY, "en")
# llama-cpp-python's server, asked for json_schema (its validation error, as it answers).
LLAMA_CPP_REFUSAL = {
    "detail": [
        {
            "type": "literal_error",
            "loc": ["body", "response_format", "type"],
            "msg": "Input should be 'text' or 'json_object'",
            "input": "json_schema",
        }
    ]
}


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def client(server: FakeLLM, **kw: float) -> LLMClient:
    return LLMClient(base_url=server.url, model="fake-model", **kw)  # type: ignore[arg-type]


def kinds(server: FakeLLM) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def test_a_500_refusal_of_json_schema_steps_down_to_json_mode_with_the_schema(
    llm: FakeLLM,
) -> None:
    llm.push(Reply(status=500, body=LLAMA_CPP_REFUSAL), Reply(content=summary_json("ok")))
    # Retries allowed, yet the refusal is not retried as it was: it steps down at once.
    assert json.loads(client(llm, max_retries=2).complete_json(CHAT, schema=SUMMARY_SCHEMA))
    assert kinds(llm) == ["json_schema", "json_object"]
    assert llm.requests[1]["response_format"]["schema"] == SUMMARY_SCHEMA
    # Remembered per endpoint: a new client of the same endpoint starts in JSON mode.
    llm.push(Reply(content=summary_json("again")))
    client(llm).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert kinds(llm)[2] == "json_object"
    assert client(llm).mode == "json_object_schema"


@pytest.mark.parametrize("status", [400, 422, 500, 501, 503])
def test_every_refusal_steps_down_to_plain_whatever_the_status(llm: FakeLLM, status: int) -> None:
    refusal = {"error": {"message": "unsupported response_format"}}
    llm.push(*[Reply(status=status, body=refusal)] * 3, Reply(content=summary_json("plain")))
    text = client(llm, max_retries=3).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert json.loads(text)["summary"] == "plain"
    assert kinds(llm) == ["json_schema", "json_object", "json_object", None]
    assert "schema" in llm.requests[1]["response_format"]
    assert "schema" not in llm.requests[2]["response_format"]


@pytest.mark.slow
def test_a_500_that_is_no_refusal_is_retried_in_the_same_mode(llm: FakeLLM) -> None:
    llm.push(
        Reply(status=500, body={"error": {"message": "out of memory"}}),
        Reply(content=summary_json("ok")),
    )
    client(llm, max_retries=1).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert kinds(llm) == ["json_schema", "json_schema"]


def test_max_tokens_is_on_every_request(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder, summary_sources: None
) -> None:
    llm.push(
        Reply(status=500, body=LLAMA_CPP_REFUSAL),
        Reply(content='{"summary": cut}'),  # invalid: asked again
        Reply(status=503, body={"error": {"message": "busy"}}),  # retried
        Reply(content=summary_json("fine")),
    )
    settings = llm_settings(llm, llm_max_tokens=333, llm_max_retries=1)
    summary = summarize_period(store, embedder, settings, WINDOW)
    assert summary.summary == "fine"
    assert len(llm.requests) == 4
    assert [r["max_tokens"] for r in llm.requests] == [333] * 4


@pytest.mark.slow
def test_a_trickling_endpoint_ends_within_the_deadline(llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("a" * 200), trickle=0.2))
    started = time.monotonic()
    with deadline.within(1.5), pytest.raises(DeadlineExceeded):
        client(llm, timeout=30.0, max_retries=2).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert time.monotonic() - started < 2.0
    assert llm.hung_up.wait(2)  # the connection was closed


@pytest.mark.slow
def test_a_trickling_endpoint_ends_within_the_request_timeout(llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("a" * 200), trickle=0.2))
    started = time.monotonic()
    with pytest.raises(UpstreamTimeout):
        client(llm, timeout=1.0, max_retries=0).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert time.monotonic() - started < 1.5


def test_an_oversized_answer_is_unusable_and_not_retried(llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("x" * 300_000)), Reply(content=summary_json("small")))
    with pytest.raises(UpstreamInvalidOutput, match="too large"):
        client(llm, max_retries=2, max_answer_bytes=100_000).complete_json(
            CHAT, schema=SUMMARY_SCHEMA
        )
    assert len(llm.requests) == 1


def test_an_oversized_chunked_answer_without_content_length_is_cut_at_the_bound(
    llm: FakeLLM,
) -> None:
    # No Content-Length to refuse up front: the body is counted as it is read.
    llm.push(Reply(content=summary_json("x" * 300_000), chunked=8192))
    with pytest.raises(UpstreamInvalidOutput, match="larger than 100000 bytes"):
        client(llm, max_retries=2, max_answer_bytes=100_000).complete_json(
            CHAT, schema=SUMMARY_SCHEMA
        )
    assert len(llm.requests) == 1


def test_a_chunked_answer_within_the_bound_is_read_whole(llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("y" * 50_000), chunked=1000))
    text = client(llm, max_answer_bytes=100_000).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert json.loads(text)["summary"] == "y" * 50_000


@pytest.mark.parametrize(
    "reply",
    [
        Reply(
            body=b"<html><body><h1>Welcome to nginx!</h1></body></html>", content_type="text/html"
        ),
        Reply(body=b"<html>not json</html>"),
        Reply(body={"ok": True}),
        Reply(body={"choices": []}),
        Reply(body={"choices": [{"index": 0, "message": {"role": "assistant"}}]}),
        Reply(body=[1, 2, 3]),
    ],
    ids=["html-page", "html-as-json", "other-json", "no-choices", "no-content", "a-list"],
)
def test_an_answer_that_is_no_chat_completion_is_unusable(llm: FakeLLM, reply: Reply) -> None:
    llm.push(reply)
    with pytest.raises(UpstreamInvalidOutput):
        client(llm, max_retries=0).complete_json(CHAT, schema=SUMMARY_SCHEMA)


@pytest.mark.parametrize(
    "content",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"summary": ' + "[" * 50_000 + "]" * 50_000 + "}",
        '{"summary": "s", "sections": [], "important_message_ids": [' + "9" * 5000 + "]}",
        '{"summary": {"nested": {"deeper": ["x"]}}, "sections": []}',
        '{"summary": "s", "sections": [{"title": {"a": 1}, "body": 2}]}',
    ],
    ids=["deep-array", "deep-summary", "bigint-id", "nested-summary", "nested-title"],
)
def test_unusable_json_is_upstream_invalid_output(
    llm: FakeLLM,
    store: SQLiteStore,
    embedder: Embedder,
    summary_sources: None,
    content: str,
) -> None:
    llm.push(Reply(content=content), Reply(content=content))
    with pytest.raises(UpstreamInvalidOutput, match="stayed invalid"):
        summarize_period(
            store, embedder, llm_settings(llm), in_period(TEAM, START, START + DAY, "en")
        )


# llama-cpp-python's server, asked to read more than its context holds.
CONTEXT_REFUSAL = {
    "error": {
        "message": "Requested tokens (9120) exceed context window of 8192",
        "type": "invalid_request_error",
    }
}


def test_a_prompt_larger_than_the_context_is_split_not_a_format_refusal(
    store: SQLiteStore, embedder: Embedder, summary_sources: None
) -> None:
    """The endpoint refuses any chunk of more than two messages: the summary halves its
    chunks until each fits, keeps asking in the first structured-output mode, and merges."""

    def answer(request: dict[str, Any]) -> Reply:
        user = request["messages"][-1]["content"]
        if user.count("<message ") > 2:
            return Reply(status=400, body=CONTEXT_REFUSAL)
        ids = re.findall(r'<message id="(\d+)"', user) or re.findall(r'"(\d+)"', user)
        # A part retells its first message; the merge, the first line of its partials.
        said = (message_texts(user) or re.findall(r'"text": "([^"]+)"', user))[0]
        return Reply(content=summary_json("part", [("Topic", said, ids[:3])], ids[:1]))

    with FakeLLM(handler=answer) as llm:
        # Each split sends the system prompt again: room for them all.
        settings = llm_settings(llm, llm_max_retries=2, llm_max_prompt_tokens=100_000)
        summary = summarize_period(store, embedder, settings, WINDOW)
        sent = [r["messages"][-1]["content"].count("<message ") for r in llm.requests]
        assert kinds(llm) == ["json_schema"] * len(llm.requests)
        assert client(llm).mode == "json_schema"
    assert summary.summary == "part"
    assert sent[0] > 2  # asked whole first, refused
    refused = [n for n in sent[:-1] if n > 2]
    answered = [n for n in sent[:-1] if n <= 2]
    assert sum(answered) == sent[0]  # each message answered once, in a part that fit
    assert len(refused) == len(answered) - 1  # every refused chunk was split in two
    assert "<partials>" in llm.requests[-1]["messages"][-1]["content"]


def test_a_context_refusal_of_a_single_message_fails_as_an_upstream_error(
    llm: FakeLLM,
) -> None:
    llm.push(Reply(status=400, body=CONTEXT_REFUSAL))
    with pytest.raises(UpstreamContextExceeded, match="larger than the LLM's context"):
        client(llm, max_retries=2).complete_json(CHAT, schema=SUMMARY_SCHEMA)
    assert kinds(llm) == ["json_schema"]


def test_a_grammar_lets_the_model_cite_only_the_messages_it_was_shown(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder, summary_sources: None
) -> None:
    """Where the server makes a grammar of the schema (llama.cpp), an id can only be one of
    the window's, and every item cites at least one."""
    llm.push(Reply(status=500, body=LLAMA_CPP_REFUSAL), Reply(content=summary_json("ok")))
    summarize_period(store, embedder, llm_settings(llm), WINDOW)
    schema = llm.requests[1]["response_format"]["schema"]
    shown = re.findall(r'<message id="(\d+)"', llm.requests[1]["messages"][-1]["content"])
    thread = schema["properties"]["threads"]["items"]
    for items in (thread["properties"]["items"], schema["properties"]["decisions"]):
        cited = items["items"]["properties"]["ids"]
        assert shown
        assert cited["items"]["enum"] == shown
        assert cited["minItems"] == 1
    # The strict json_schema a hosted endpoint gets stays the plain one.
    assert llm.requests[0]["response_format"]["json_schema"]["schema"] == SUMMARY_SCHEMA
