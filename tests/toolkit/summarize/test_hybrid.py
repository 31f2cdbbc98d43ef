"""The hybrid engine: the offline digest, its lines rewritten by a model in small requests.

Scripted endpoints rewrite faithfully, or add a number, a participant or an id, answer
in another language, loop, echo the prompt, answer broken JSON or fail: every rejected
rewrite leaves the offline line in its place, counted.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings
from summary_data import START, in_period

from toolkit.embeddings import Embedder
from toolkit.errors import UpstreamError
from toolkit.lang import pack
from toolkit.models import Summary
from toolkit.store import SQLiteStore
from toolkit.summarize.hybrid import _lines, split_links, with_links
from toolkit.summarize.llm.grounding import untranslated_quote
from toolkit.summarize.llm.messages import estimate_tokens
from toolkit.summarize.pipeline import summarize_period

pytestmark = pytest.mark.usefixtures("summary_sources")

TEAM = "@platform_team"
RU = "@db_weekly_ru"
WINDOW = {str(i) for i in range(1, 21)}
LINE_RE = re.compile(r"^(\d+): (.*)$", re.MULTILINE)


def sent_lines(request: dict[str, Any]) -> list[str]:
    """The lines a rewrite request carries."""
    user = request["messages"][-1]["content"]
    return [html.unescape(m.group(2)) for m in LINE_RE.finditer(user)]


def rewriting(rewrite: Callable[[str], str]) -> Callable[[dict[str, Any]], Reply]:
    """A handler that answers each request with ``rewrite`` of each of its lines."""

    def handler(request: dict[str, Any]) -> Reply:
        lines = sent_lines(request)
        answer = {str(n): rewrite(line) for n, line in enumerate(lines, 1)}
        return Reply(content=json.dumps(answer, ensure_ascii=False))

    return handler


def unquoted(line: str) -> str:
    """A faithful rewrite: the quotation retold without its marks."""
    return re.sub(r"[“”«»\"]", "", line).replace(" says ", " says that ", 1)


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def hybrid(
    llm: FakeLLM,
    store: SQLiteStore,
    embedder: Embedder,
    *,
    ref: str = TEAM,
    language: str = "en",
    **settings: Any,
) -> Summary:
    settings.setdefault("llm_hybrid_max_items", 50)  # every line, unless a test bounds them
    return summarize_period(
        store,
        embedder,
        # Every line of the day's digest is asked for (the default bound is a local model's).
        llm_settings(llm, summary_engine="hybrid", **{"llm_hybrid_max_items": 100, **settings}),
        in_period(ref, START, START + timedelta(days=1), language, use_cache=False),
    )


def offline(store: SQLiteStore, embedder: Embedder, llm: FakeLLM, **kw: Any) -> Summary:
    return summarize_period(
        store,
        embedder,
        llm_settings(llm, summary_engine="extractive"),
        in_period(kw.get("ref", TEAM), START, START + timedelta(days=1), kw.get("language", "en")),
    )


def items(summary: Summary) -> list[str]:
    return [item.text for s in summary.sections for item in s.items]


@pytest.mark.slow
def test_faithful_rewrites_replace_the_lines_in_small_requests(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    llm.handler = rewriting(unquoted)
    before = offline(store, embedder, llm)
    summary = hybrid(
        store=store, embedder=embedder, llm=llm, llm_hybrid_batch_items=3, llm_hybrid_max_items=50
    )
    assert summary.engine == "hybrid"
    # The offline engine's structure: the same sections, titles, ids and links.
    assert [(s.title, s.kind) for s in summary.sections] == [
        (s.title, s.kind) for s in before.sections
    ]
    for new, old in zip(summary.sections, before.sections, strict=True):
        assert [i.messenger_message_ids for i in new.items] == [
            i.messenger_message_ids for i in old.items
        ]
        for new_item, old_item in zip(new.items, old.items, strict=True):
            assert split_links(new_item.text)[1] == split_links(old_item.text)[1]
            assert f"— {new_item.text}" in new.body
    assert summary.important_messenger_message_ids == before.important_messenger_message_ids
    total = len(items(before))
    quoted = sum(1 for t in items(before) if "“" in t)
    assert quoted >= 3
    assert summary.items_rewritten == quoted
    assert summary.items_offline == total - quoted
    assert summary.items_dropped == 0
    assert not any("“" in t for t in items(summary))
    # Small requests: a few lines each, max_tokens bounded by what they need.
    assert llm.requests
    for request in llm.requests:
        assert 1 <= len(sent_lines(request)) <= 3
        assert request["max_tokens"] <= 500
        # Links are put back in code, never sent.
        assert "https://" not in request["messages"][-1]["content"]


@pytest.mark.parametrize(("ref", "quoted"), [(RU, "ru"), (TEAM, "en")])
def test_each_line_is_one_request_with_an_example_in_the_language(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder, ref: str, quoted: str
) -> None:
    """The shape a 135M model follows: one line a request (the default), one short
    instruction, a few-shot turn in the requested language, max_tokens tight."""
    llm.handler = rewriting(unquoted)
    hybrid(llm, store, embedder, ref=ref, language="en", llm_hybrid_max_items=4)
    assert 1 <= len(llm.requests) <= 4
    english = pack("en")
    across = 0
    for request in llm.requests:
        chat = request["messages"]
        assert [m["role"] for m in chat] == ["system", "user", "assistant", "user"]
        assert len(chat[0]["content"]) < 300  # one short instruction
        line = sent_lines(request)
        assert len(line) == 1
        example, answer = chat[1]["content"], json.loads(chat[2]["content"])["1"]
        if untranslated_quote(line[0], "en") is not None:
            # A line quoting Russian: the example quotes Russian, its answer translates.
            assert pack(quoted).say("rewrite_quote") in example
            assert english.quote(english.say("rewrite_quote")) in answer
            across += 1
        else:  # a line in English: the example retells its quotation
            assert english.quote(english.say("rewrite_quote")) in example
            assert answer == english.say("rewrite_told", who="Ann K.")
        assert request["max_tokens"] <= 2 * estimate_tokens(line[0]) + 16 + 24
        assert request["temperature"] == 0
    assert (across > 0) == (quoted != "en")


@pytest.mark.slow
def test_rewrites_stop_at_the_bound_of_lines(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    llm.handler = rewriting(unquoted)
    hybrid(llm, store, embedder, llm_hybrid_batch_items=2, llm_hybrid_max_items=3)
    assert sum(len(sent_lines(r)) for r in llm.requests) == 3
    assert len(llm.requests) == 2


@pytest.mark.parametrize(
    ("name", "rewrite"),
    [
        ("an invented number", lambda line: unquoted(line) + " at 17:45 for 300 euros"),
        ("an invented participant", lambda line: unquoted(line) + ", and Dave agrees"),
        ("an invented id", lambda line: unquoted(line) + " (message 424242)"),
        ("an invented handle", lambda line: unquoted(line) + ", says @admin_bot"),
        ("an invented host", lambda line: unquoted(line) + " on evil.example/login"),
        ("another language", lambda line: "Это совсем другая строка на русском языке про релиз"),
        ("a loop", lambda line: f"{unquoted(line)}, the release is ready, the release is ready"),
        ("an echo", lambda line: "Keep every name exactly as it is written, add nothing"),
        ("markup", lambda line: f"<b>{unquoted(line)}</b>"),
        ("a lost line", lambda line: line.split(" ")[0]),
        ("another line", lambda line: "Carol will open a ticket to fix the flaky Redis test"),
    ],
)
@pytest.mark.slow
def test_a_rewrite_that_adds_or_loses_something_is_rejected(
    llm: FakeLLM,
    store: SQLiteStore,
    embedder: Embedder,
    name: str,
    rewrite: Callable[[str], str],
) -> None:
    llm.handler = rewriting(rewrite)
    before = offline(store, embedder, llm)
    summary = hybrid(llm, store, embedder)
    # A line whose messages hold it already (Dave's own lines) may pass: most may not.
    slack = 4 if name == "an invented participant" else 2
    assert summary.items_dropped >= len(items(before)) - slack, name
    kept = set(items(summary)) & set(items(before))
    assert len(kept) >= len(items(before)) - slack, name
    assert "424242" not in json.dumps(items(summary))
    assert "evil.example" not in summary.summary + json.dumps(items(summary))
    assert summary.items_rewritten + summary.items_offline == len(items(before))


def test_cross_language_lines_are_translated_or_kept(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    # Russian posts, an English digest: the offline lines quote Russian.
    before = offline(store, embedder, llm, ref=RU)
    quoted = [t for t in items(before) if re.search("[а-я]", t)]
    assert quoted

    def translate(line: str) -> str:
        # As a good model translates the quote (the 6 May post, quoted whole).
        faithful = "a new episode of the database podcast is out: on indexes in PostgreSQL"
        return re.sub(r"“[^”]*”", faithful, line)

    llm.handler = rewriting(translate)
    summary = hybrid(llm, store, embedder, ref=RU)
    assert summary.items_rewritten >= 1, (items(before), summary)
    assert not any(re.search("[а-я]", t) for t in items(summary)[: summary.items_rewritten])

    # Russian left untranslated in the rewrite: rejected, the offline line stays.
    llm.handler = rewriting(lambda line: line.replace("“", "«").replace("”", "» indeed"))
    summary = hybrid(llm, store, embedder, ref=RU)
    assert summary.items_rewritten == 0
    assert items(summary) == items(before)


@pytest.mark.slow
def test_broken_json_leaves_its_lines_offline_and_the_rest_go_on(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    calls = {"n": 0}
    faithful = rewriting(unquoted)

    def handler(request: dict[str, Any]) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(content='{"1": "Alice says, "2": ')
        return faithful(request)

    llm.handler = handler
    summary = hybrid(llm, store, embedder, llm_hybrid_batch_items=2)
    assert summary.engine == "hybrid"
    assert summary.items_rewritten >= 1
    assert len(llm.requests) >= 2


@pytest.mark.slow
def test_a_failing_endpoint_is_an_error_or_the_offline_digest(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    llm.handler = lambda request: Reply(status=500, body={"error": {"message": "down"}})
    with pytest.raises(UpstreamError):
        hybrid(llm, store, embedder)
    summary = hybrid(llm, store, embedder, llm_fallback="extractive")
    assert summary.engine == "extractive (llm fallback: endpoint error)"
    assert items(summary) == items(offline(store, embedder, llm))


@pytest.mark.slow
def test_pseudonymised_rewrites_send_no_names(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    llm.handler = rewriting(unquoted)
    summary = hybrid(llm, store, embedder, llm_pseudonymise=True)
    sent = json.dumps([r["messages"] for r in llm.requests])
    for name in ("Alice", "Bob", "Carol", "Dave"):
        assert name not in sent
    assert summary.items_rewritten >= 1
    assert any("Alice" in t or "Bob" in t or "Carol" in t for t in items(summary))


def test_links_are_taken_out_and_put_back() -> None:
    text, links = split_links("Alice says “ship it” (https://t.me/x/1, https://t.me/x/2)")
    assert text == "Alice says “ship it”"
    assert links == "https://t.me/x/1, https://t.me/x/2"
    assert with_links("Alice says to ship it.", links) == (
        "Alice says to ship it (https://t.me/x/1, https://t.me/x/2)."
    )


def test_a_quotation_cut_with_an_ellipsis_is_one_line_with_its_link() -> None:
    """A sentence splitter cuts after "…»"; the links and stop after it are no line of
    their own (a model asked to rewrite "." writes anything)."""
    paragraph = (
        "Pia N. пишет: «Yes, but sometimes you have to…» (https://t.me/x/2099). "
        "Ugo H. спрашивает: «is it a human?» (https://t.me/x/2161)."
    )
    summary = Summary(
        source_ref="@x", summary=paragraph, sections=[], important_messenger_message_ids=[]
    )
    lines = _lines(summary, (), 10)
    assert [(line.text, line.links) for line in lines] == [
        ("Pia N. пишет: «Yes, but sometimes you have to…».", "https://t.me/x/2099"),
        ("Ugo H. спрашивает: «is it a human?».", "https://t.me/x/2161"),
    ]


@pytest.mark.slow
def test_the_counts_survive_the_cache(llm: FakeLLM, store: SQLiteStore, embedder: Embedder) -> None:
    llm.handler = rewriting(unquoted)
    settings = llm_settings(llm, summary_engine="hybrid")
    request = in_period(TEAM, START, START + timedelta(days=1), "en")
    first = summarize_period(store, embedder, settings, request)
    assert store.flush_writes()
    asked = len(llm.requests)
    again = summarize_period(store, embedder, settings, request)
    assert len(llm.requests) == asked  # answered from the cache, counts and all
    assert again == first
    assert first.items_rewritten >= 1


@pytest.mark.slow
def test_a_request_that_times_out_leaves_the_rest_offline_uncached(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    faithful = rewriting(unquoted)
    calls = {"n": 0}

    def handler(request: dict[str, Any]) -> Reply:
        calls["n"] += 1
        reply = faithful(request)
        if calls["n"] == 2:
            reply.delay = 3.0
        return reply

    llm.handler = handler
    summary = hybrid(llm, store, embedder, llm_hybrid_batch_items=2, llm_timeout=1.0)
    assert summary.engine == "hybrid (partial: timeout)"
    assert summary.items_rewritten + summary.items_offline == len(
        items(offline(store, embedder, llm))
    )
    assert len(llm.requests) == 2  # no request after the one that timed out


@pytest.mark.slow
def test_a_summary_sentence_may_not_borrow_from_messages_it_does_not_link(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    """A summary sentence is checked against the messages it links, not the whole window:
    a rewrite that adds what another message of the day says (Dave's feature flag) is
    rejected, and the offline sentence stays."""
    before = offline(store, embedder, llm)
    assert "billing" not in before.summary.lower()
    added = ", and Dave wants the billing page behind a feature flag."
    llm.handler = rewriting(lambda line: line.rstrip(".") + added)
    summary = hybrid(llm, store, embedder)
    assert "billing" not in summary.summary.lower()
    assert summary.summary == before.summary
