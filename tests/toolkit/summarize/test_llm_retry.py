"""``LLMClient``'s own retries (``summarize/llm/retry.py``), with no deadline set: the
openai client's policy, run by us so that a deadline can cut it short."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_llm import FakeLLM, Reply, summary_json

from toolkit.errors import UpstreamError, UpstreamRateLimited
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.prompts import SUMMARY_SCHEMA

CHAT = [{"role": "user", "content": "Summarise."}]
ERROR = {"error": {"message": "no"}}


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def ask(server: FakeLLM, *, timeout: float = 5.0, max_retries: int = 2) -> str:
    client = LLMClient(
        base_url=server.url, model="fake-model", timeout=timeout, max_retries=max_retries
    )
    return client.complete_json(CHAT, schema=SUMMARY_SCHEMA)


@pytest.mark.slow
def test_a_timed_out_request_is_sent_again(llm: FakeLLM) -> None:
    llm.push(Reply(content=summary_json("late"), delay=2.0), Reply(content=summary_json("Now.")))
    assert "Now." in ask(llm, timeout=0.3, max_retries=1)
    assert len(llm.requests) == 2


def test_server_errors_are_retried_up_to_max_retries(llm: FakeLLM) -> None:
    llm.push(*[Reply(status=502, body=ERROR, headers={"retry-after-ms": "1"})] * 4)
    with pytest.raises(UpstreamError, match="HTTP 502"):
        ask(llm, max_retries=2)
    assert len(llm.requests) == 3


def test_the_endpoint_can_forbid_a_retry(llm: FakeLLM) -> None:
    llm.push(Reply(status=500, body=ERROR, headers={"x-should-retry": "false"}))
    with pytest.raises(UpstreamError):
        ask(llm)
    assert len(llm.requests) == 1


def test_a_retry_after_over_two_minutes_is_not_waited_for(llm: FakeLLM) -> None:
    llm.push(Reply(status=429, body=ERROR, headers={"retry-after": "300"}))
    with pytest.raises(UpstreamRateLimited) as info:
        ask(llm)
    assert info.value.retry_after == 300.0
    assert len(llm.requests) == 1


def test_client_errors_are_not_retried(llm: FakeLLM) -> None:
    llm.push(Reply(status=401, body=ERROR))
    with pytest.raises(UpstreamError, match="HTTP 401"):
        ask(llm)
    assert len(llm.requests) == 1
