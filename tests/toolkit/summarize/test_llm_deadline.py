"""The LLM engine honours the caller's deadline (``toolkit.deadline``): a slow endpoint is
abandoned when the deadline passes, and no retry or chunk request starts after it.

Driven through the real ``openai`` client against the scripted server on 127.0.0.1."""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json
from summary_data import START, in_period

from toolkit import deadline
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import DeadlineExceeded, UpstreamRateLimited
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.prompts import SUMMARY_SCHEMA
from toolkit.summarize.llm.transport import DeadlineTransport, shared_ssl_context
from toolkit.summarize.pipeline import summarize_period

CHAT = [{"role": "user", "content": "Summarise."}]
LLM_TIMEOUT = 5.0


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def client(server: FakeLLM, *, max_retries: int) -> LLMClient:
    return LLMClient(
        base_url=server.url, model="fake-model", timeout=LLM_TIMEOUT, max_retries=max_retries
    )


def ask(server: FakeLLM, *, max_retries: int) -> str:
    return client(server, max_retries=max_retries).complete_json(CHAT, schema=SUMMARY_SCHEMA)


@pytest.mark.slow
def test_a_stalled_request_is_abandoned_at_the_deadline_and_not_retried(llm: FakeLLM) -> None:
    llm.push(*[Reply(content=summary_json("too late"), delay=30.0)] * 4)
    started = time.monotonic()
    with deadline.within(0.5), pytest.raises(DeadlineExceeded, match=r"0\.5 s"):
        ask(llm, max_retries=3)
    # Cut at the deadline, not at the 5 s request timeout (which would be UpstreamTimeout).
    assert time.monotonic() - started < LLM_TIMEOUT
    assert llm.hung_up.wait(2)  # the client closed the stalled request
    assert len(llm.requests) == 1


def test_no_request_starts_once_the_deadline_has_passed(llm: FakeLLM) -> None:
    with deadline.within(0.01):
        time.sleep(0.05)
        with pytest.raises(DeadlineExceeded):
            ask(llm, max_retries=2)
    assert llm.requests == []


def test_retries_stop_when_the_next_would_start_after_the_deadline(llm: FakeLLM) -> None:
    busy = Reply(status=429, body={"error": {"message": "busy"}}, headers={"retry-after-ms": "300"})
    llm.push(*[busy] * 6)
    with deadline.within(0.5), pytest.raises((UpstreamRateLimited, DeadlineExceeded)):
        ask(llm, max_retries=5)
    assert 1 <= len(llm.requests) <= 2  # six without the deadline


def test_a_retry_after_longer_than_the_time_left_is_not_waited_for(llm: FakeLLM) -> None:
    llm.push(
        *[Reply(status=429, body={"error": {"message": "quota"}}, headers={"retry-after": "7"})] * 3
    )
    with deadline.within(3.0), pytest.raises(UpstreamRateLimited) as info:
        ask(llm, max_retries=2)
    assert info.value.retry_after == 7.0
    assert len(llm.requests) == 1


def test_retries_that_fit_in_the_deadline_still_happen(llm: FakeLLM) -> None:
    llm.push(
        Reply(
            status=503, body={"error": {"message": "warming up"}}, headers={"retry-after-ms": "20"}
        ),
        Reply(content=summary_json("After the retry.")),
    )
    with deadline.within(10.0):
        text = ask(llm, max_retries=1)
    assert "After the retry." in text
    assert len(llm.requests) == 2


def _settings(server: FakeLLM, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"llm_timeout": LLM_TIMEOUT, "llm_max_retries": 2, **overrides}
    return llm_settings(server, **values)


@pytest.mark.slow
def test_chunk_requests_stop_at_the_deadline(llm: FakeLLM, embedder: Embedder) -> None:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Busy", kind=SourceKind.CHAT, handle="busy_chat")
    store.upsert_messages(
        Message(source.id, i + 1, START + timedelta(minutes=i), f"Message {i} on deploys. " * 8)
        for i in range(90)
    )
    llm.handler = lambda request: Reply(content=summary_json("slow"), delay=30.0)
    settings = _settings(
        llm, llm_chunk_tokens=1800, llm_max_concurrency=2, llm_max_prompt_tokens=100_000
    )
    try:
        with deadline.within(1.0), pytest.raises(DeadlineExceeded):
            summarize_period(
                store,
                embedder,
                settings,
                in_period("@busy_chat", START, START + timedelta(days=1), "en"),
            )
        # The two chunk requests in flight were cut at the deadline (in their worker
        # threads); none of the other chunks, nor any retry, was sent.
        assert len(llm.requests) == 2
    finally:
        store.close()


def test_clients_of_different_endpoints_share_one_tls_context() -> None:
    # Building a TLS context reads the whole certificate bundle; a client per endpoint
    # must not pay that again. An explicit ``verify`` still wins.
    first = DeadlineTransport(max_bytes=1024)
    second = DeadlineTransport(max_bytes=2048)
    unverified = DeadlineTransport(max_bytes=1024, verify=False)
    try:
        assert first._pool._ssl_context is second._pool._ssl_context is shared_ssl_context()
        assert unverified._pool._ssl_context is not shared_ssl_context()
        assert shared_ssl_context().verify_mode == ssl.CERT_REQUIRED
    finally:
        for transport in (first, second, unverified):
            transport.close()
