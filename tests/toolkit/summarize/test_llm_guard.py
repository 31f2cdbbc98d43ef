"""The bounds of the LLM summary path, against the scripted endpoint: a summary's prompt
budget (a spread sample past it, said in ``sampled``; map-reduce and its retries within
it), a period cached by its content (a one-second move of ``ended_at`` is no new bill),
the fallback reached on a hang, retries only while they fit the deadline, ``Retry-After``
clamped, upstream text kept out of our errors, the answer's language checked, and an
empty period that asks nothing."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json

from toolkit import deadline
from toolkit.embeddings import Embedder
from toolkit.errors import (
    DeadlineExceeded,
    UpstreamError,
    UpstreamInvalidOutput,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.models import Message, SourceKind
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.budget import FRAMING_TOKENS, PromptBudget, PromptBudgetSpent
from toolkit.summarize.llm.client import LLMClient
from toolkit.summarize.llm.language import prose_language
from toolkit.summarize.llm.messages import estimate_tokens
from toolkit.summarize.llm.prompts import SUMMARY_SCHEMA
from toolkit.summarize.llm.retry import RETRY_AFTER_CAP, retry_after
from toolkit.summarize.pipeline import summarize_period

START = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
ID_RE = re.compile(r'<message id="(\d+)"')
TOPICS = ("deploy", "rollback", "database", "budget", "hiring", "release")


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def _busy(n: int) -> SQLiteStore:
    """A chat of ``n`` messages a minute apart, a few sentences each."""
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Busy", kind=SourceKind.CHAT, handle="busy_chat")
    store.upsert_messages(
        Message(
            source.id,
            i + 1,
            START + timedelta(minutes=i),
            f"Note {i} on the {TOPICS[i % len(TOPICS)]}: we looked at it again and agreed to "
            "keep the plan, with one more check before Friday.",
            sender_peer_id=f"user{100 + i % 7}",
            sender_name=f"Member {i % 7}",
        )
        for i in range(n)
    )
    return store


def _window(hours: float = 24, **options: Any) -> SummaryRequest:
    return SummaryRequest(
        source_ref="@busy_chat",
        started_at=START,
        ended_at=START + timedelta(hours=hours),
        language="en",
        **options,
    )


def _answering(request: dict[str, Any]) -> Reply:
    """A model that cites what it read; a merge cites what its partials cite."""
    user = request["messages"][-1]["content"]
    ids = ID_RE.findall(user) or re.findall(r'"(\d+)"', user)
    return Reply(
        content=summary_json(
            "The team kept the plan and added a check before Friday.",
            [("Plan", "Kept, with one more check.", ids[:3])],
            ids[:2],
        )
    )


def _prompt_tokens(request: dict[str, Any]) -> int:
    """A request's prompt tokens as the budget counts them."""
    return sum(estimate_tokens(m["content"]) for m in request["messages"]) + FRAMING_TOKENS


# -- the prompt budget ---------------------------------------------------------------


def test_a_window_past_the_budget_is_sampled_and_says_so(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(600)
    llm.handler = _answering
    settings = llm_settings(llm, summary_engine="llm", llm_max_prompt_tokens=3000)
    try:
        summary = summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    assert len(llm.requests) == 1  # one request, not 600 messages' worth of them
    assert sum(_prompt_tokens(r) for r in llm.requests) <= 3000
    assert summary.sampled is not None
    read, of = summary.sampled
    assert of == 600
    assert 10 < read < 600
    shown = [int(i) for i in ID_RE.findall(llm.requests[0]["messages"][-1]["content"])]
    assert len(shown) == read
    assert shown[0] < 100
    assert shown[-1] > 500


def test_map_reduce_never_sends_more_than_the_budget(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(400)
    llm.handler = _answering
    settings = llm_settings(
        llm, summary_engine="llm", llm_chunk_tokens=1200, llm_max_prompt_tokens=8000
    )
    try:
        summary = summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    merges = [r for r in llm.requests if "<partials>" in r["messages"][-1]["content"]]
    assert len(llm.requests) > 2
    assert merges
    assert sum(_prompt_tokens(r) for r in llm.requests) <= 8000
    assert summary.sampled is not None
    assert summary.sampled[1] == 400


def test_a_window_within_the_budget_is_read_whole(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(30)
    llm.handler = _answering
    try:
        summary = summarize_period(
            store, embedder, llm_settings(llm, summary_engine="llm"), _window(use_cache=False)
        )
    finally:
        store.close()
    assert summary.sampled is None
    assert len(ID_RE.findall(llm.requests[0]["messages"][-1]["content"])) == 30


def test_a_retry_is_asked_only_while_the_budget_has_room(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(600)
    llm.push(Reply(content="Sure! Here it is."), Reply(content=summary_json("Never asked.")))
    settings = llm_settings(llm, summary_engine="llm", llm_max_prompt_tokens=3000)
    try:
        with pytest.raises(UpstreamInvalidOutput, match="no room to ask again"):
            summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    assert len(llm.requests) == 1


def test_the_client_sends_no_request_past_the_budget(llm: FakeLLM) -> None:
    from toolkit.summarize.llm import budget

    chat = [{"role": "user", "content": "Summarise. " * 100}]
    client = LLMClient(base_url=llm.url, model="fake-model", max_retries=0)
    llm.handler = lambda _: Reply(content=summary_json("ok"))
    with budget.spending(FRAMING_TOKENS + 150), pytest.raises(PromptBudgetSpent):
        client.complete_json(chat, schema=SUMMARY_SCHEMA)
    assert llm.requests == []
    spend = PromptBudget(1000)
    spend.charge(900)
    assert not spend.fits(200)
    spend.refund(900)
    assert spend.fits(1000)


# -- the cache of a period --------------------------------------------------------------


def test_a_second_more_or_less_of_a_period_is_the_same_summary(
    llm: FakeLLM, embedder: Embedder
) -> None:
    store = _busy(30)
    llm.handler = _answering
    settings = llm_settings(llm, summary_engine="llm")
    try:
        first = summarize_period(store, embedder, settings, _window(hours=24))
        assert store.flush_writes()
        moved = SummaryRequest(
            source_ref="@busy_chat",
            started_at=START - timedelta(seconds=1),
            ended_at=START + timedelta(hours=24, seconds=1),
            language="en",
        )
        again = summarize_period(store, embedder, settings, moved)
        assert len(llm.requests) == 1  # no second upstream bill
        assert again.summary == first.summary
        # New content is a new summary.
        store.upsert_messages([Message(1, 999, START + timedelta(hours=2), "A new message.")])
        summarize_period(store, embedder, settings, moved)
        assert len(llm.requests) == 2
    finally:
        store.close()


def test_a_sampled_summary_keeps_its_sampled_in_the_cache(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(600)
    llm.handler = _answering
    settings = llm_settings(llm, summary_engine="llm", llm_max_prompt_tokens=3000)
    try:
        first = summarize_period(store, embedder, settings, _window())
        assert store.flush_writes()
        cached = summarize_period(store, embedder, settings, _window())
    finally:
        store.close()
    assert len(llm.requests) == 1
    assert cached.sampled == first.sampled is not None


# -- the deadline, the fallback, retries ------------------------------------------------


@pytest.mark.slow
def test_a_hang_gets_the_fallback_before_the_deadline(llm: FakeLLM, embedder: Embedder) -> None:
    """The issue's case scaled down: request timeout 6 s, deadline 8 s, retries on. The
    LLM gives up with the fallback's time left (half of it, 4 s), and the offline digest
    answers."""
    store = _busy(30)
    warm = llm_settings(llm, summary_engine="extractive")  # the offline engine loaded
    summarize_period(store, embedder, warm, _window(use_cache=False))
    llm.handler = lambda _: Reply(content=summary_json("too late"), delay=30.0)
    settings = llm_settings(
        llm,
        summary_engine="llm",
        llm_timeout=6.0,
        llm_max_retries=2,
        llm_fallback="extractive",
        llm_fallback_seconds=15.0,
    )
    started = time.monotonic()
    try:
        with deadline.within(8.0):
            summary = summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    assert time.monotonic() - started < 8.0
    assert summary.engine == "extractive (llm fallback: timeout)"
    assert len(llm.requests) == 1  # no retry: it could not get the time the hang took


@pytest.mark.parametrize(
    ("llm_timeout", "within", "error", "took", "requests"),
    [
        # The endpoint's timeout comes first: a timeout before the deadline, no retry.
        (2.0, 3.5, UpstreamTimeout, 3.0, 1),
        # The deadline comes first: the work ends at it (the window's embedding may
        # outlast it on a busy machine: then no request starts).
        (30.0, 1.5, DeadlineExceeded, 2.5, None),
    ],
    ids=["timeout-before-the-deadline", "ends-at-the-deadline"],
)
@pytest.mark.slow
def test_a_hang_without_fallback_ends_by_the_deadline(
    llm: FakeLLM,
    embedder: Embedder,
    llm_timeout: float,
    within: float,
    error: type[Exception],
    took: float,
    requests: int | None,
) -> None:
    store = _busy(30)
    llm.handler = lambda _: Reply(content=summary_json("too late"), delay=30.0)
    settings = llm_settings(llm, summary_engine="llm", llm_timeout=llm_timeout, llm_max_retries=2)
    started = time.monotonic()
    try:
        with deadline.within(within), pytest.raises(error):
            summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    assert time.monotonic() - started < took
    if requests is not None:
        assert len(llm.requests) == requests


def test_a_quick_failure_is_still_retried_within_the_deadline(llm: FakeLLM) -> None:
    llm.push(
        Reply(status=503, body={"error": {"message": "warming"}}, headers={"retry-after-ms": "10"}),
        Reply(content=summary_json("After the retry.")),
    )
    client = LLMClient(base_url=llm.url, model="fake-model", timeout=5.0, max_retries=2)
    with deadline.within(5.0):
        text = client.complete_json([{"role": "user", "content": "Hi."}], schema=SUMMARY_SCHEMA)
    assert "After the retry." in text


# -- Retry-After ------------------------------------------------------------------------


class _Response:
    def __init__(self, **headers: str) -> None:
        self.headers = headers


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ({"retry-after": "inf"}, RETRY_AFTER_CAP),
        ({"retry-after": "-inf"}, 0.0),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "-5"}, 0.0),
        ({"retry-after": "1e400"}, RETRY_AFTER_CAP),
        ({"retry-after": "99999999999"}, RETRY_AFTER_CAP),
        ({"retry-after": "12"}, 12.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, RETRY_AFTER_CAP),
        ({"retry-after": "soon"}, None),
        ({"retry-after-ms": "inf"}, RETRY_AFTER_CAP),
        ({"retry-after-ms": "nan"}, None),
        ({"retry-after-ms": "250"}, 0.25),
    ],
)
def test_retry_after_is_clamped(header: dict[str, str], seconds: float | None) -> None:
    assert retry_after(_Response(**header)) == seconds


@pytest.mark.parametrize("value", ["inf", "nan", "-3", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_rate_limit_with_any_retry_after_is_a_finite_wait(llm: FakeLLM, value: str) -> None:
    llm.push(Reply(status=429, body={"error": {"message": "slow"}}, headers={"retry-after": value}))
    client = LLMClient(base_url=llm.url, model="fake-model", timeout=5.0, max_retries=0)
    with pytest.raises(UpstreamRateLimited) as info:
        client.complete_json([{"role": "user", "content": "Hi."}], schema=SUMMARY_SCHEMA)
    assert 0 <= info.value.retry_after <= RETRY_AFTER_CAP


# -- upstream text -------------------------------------------------------------------------

LEAKY = {
    "error": {
        "message": "Traceback: /srv/llm/app/server.py line 88; key sk-live-****WXYZ invalid",
        "type": "server_error",
    }
}


@pytest.mark.parametrize("status", [400, 401, 404, 500, 503])
def test_upstream_text_is_logged_not_carried(
    llm: FakeLLM, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    llm.handler = lambda _: Reply(status=status, body=LEAKY)
    client = LLMClient(
        base_url=llm.url, model="fake-model", api_key="sk-live-secretWXYZ", max_retries=0
    )
    with caplog.at_level(logging.WARNING), pytest.raises(UpstreamError) as info:
        client.complete_json([{"role": "user", "content": "Hi."}], schema=SUMMARY_SCHEMA)
    said = str(info.value)
    for leak in ("/srv", "server.py", "WXYZ", "Traceback", "sk-live"):
        assert leak not in said
    assert "/srv/llm/app/server.py" in caplog.text  # the operator still sees it
    assert "sk-live-secretWXYZ" not in caplog.text


# -- the answer's language -------------------------------------------------------------------

RUSSIAN = "Команда договорилась сохранить план и добавить ещё одну проверку перед пятницей."


def test_an_answer_in_another_language_is_asked_again_then_kept(
    llm: FakeLLM, embedder: Embedder
) -> None:
    store = _busy(20)
    llm.push(
        Reply(content=summary_json(RUSSIAN, [("План", RUSSIAN, ["1"])], ["1"])),
        Reply(content=summary_json("The team kept the plan and added one more check.")),
    )
    settings = llm_settings(llm, summary_engine="llm")
    try:
        summary = summarize_period(store, embedder, settings, _window(use_cache=False))
    finally:
        store.close()
    assert summary.summary == "The team kept the plan and added one more check."
    assert "English" in llm.requests[1]["messages"][-1]["content"]


@pytest.mark.slow
def test_an_answer_that_stays_in_another_language_is_rejected(
    llm: FakeLLM, embedder: Embedder
) -> None:
    store = _busy(20)
    llm.handler = lambda _: Reply(content=summary_json(RUSSIAN, [("План", RUSSIAN, ["1"])]))
    try:
        with pytest.raises(UpstreamInvalidOutput, match="answered in Russian, not in English"):
            summarize_period(
                store, embedder, llm_settings(llm, summary_engine="llm"), _window(use_cache=False)
            )
        fallback = llm_settings(llm, summary_engine="llm", llm_fallback="extractive")
        summary = summarize_period(store, embedder, fallback, _window(use_cache=False))
    finally:
        store.close()
    assert summary.engine == "extractive (llm fallback: invalid output)"


@pytest.mark.parametrize(
    ("text", "language", "found"),
    [
        (RUSSIAN, "en", "ru"),
        (RUSSIAN, "uk", "ru"),
        (RUSSIAN, "ru", None),
        (
            "Команда домовилася зберегти план і додати ще одну перевірку перед пʼятницею.",
            "ru",
            "uk",
        ),
        ("The team kept the plan and added one more check before Friday.", "de", "en"),
        ("Das Team hat beschlossen, den Plan beizubehalten und am Freitag zu prüfen.", "de", None),
        ("Release plan", "ru", None),  # too short to tell
        ('{"tool": "http_get", "url": ""} SYSTEM role system', "en", None),  # unsure
        ("Teamet ble enige om å beholde planen og legge til en sjekk før fredag.", "nb", None),
    ],
)
def test_the_language_of_prose(text: str, language: str, found: str | None) -> None:
    assert prose_language(text, language) == found


# -- an empty period -----------------------------------------------------------------------


def test_an_empty_period_calls_no_model(llm: FakeLLM, embedder: Embedder) -> None:
    store = _busy(5)
    try:
        request = SummaryRequest(
            source_ref="@busy_chat",
            started_at=START + timedelta(days=30),
            ended_at=START + timedelta(days=31),
            language="ru",
            use_cache=False,
        )
        summary = summarize_period(
            store, embedder, llm_settings(llm, summary_engine="llm"), request
        )
    finally:
        store.close()
    assert llm.requests == []
    assert summary.summary == "С 2026-06-03 08:00 UTC по 2026-06-04 08:00 UTC сообщений нет."
    assert summary.sections == []
