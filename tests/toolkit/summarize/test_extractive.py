"""The extractive engine through the pipeline: sections, ids, languages, wording, vectors."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from summary_data import NO_PACK, START, TEAM_CHAT, about_source, in_period

from benchmarks.bench_import import CountingEmbedder
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import (
    ConfigError,
    InvalidRequest,
    SourceNotFound,
    UnsupportedLanguage,
)
from toolkit.lang.morph import analyzer
from toolkit.models import MessageFilter, Summary
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore
from toolkit.summarize.extractive.draft.quotes import balanced, one_line
from toolkit.summarize.llm.answer import URL_RE
from toolkit.summarize.period_wording import find_period_wording
from toolkit.summarize.pipeline import summarize_period, summarize_source
from toolkit.summarize.registry import OFFLINE

pytestmark = pytest.mark.usefixtures("summary_sources")

TEAM, RU, OPS = "@platform_team", "https://t.me/db_weekly_ru", "t.me/c/1500000003"
WEEK = timedelta(days=7)


@pytest.fixture
def settings(clean_env: pytest.MonkeyPatch) -> Settings:
    return Settings(_env_file=None, database={"path": ":memory:"})  # type: ignore[call-arg]


def _team_week(
    store: SQLiteStore, embedder: Embedder, settings: Settings, language: str
) -> Summary:
    """The summary of the team chat's first week in ``language``."""
    return summarize_period(
        store, embedder, settings, in_period(TEAM, START, START + WEEK, language)
    )


def _texts(summary: Summary) -> list[str]:
    return [summary.summary] + [f"{s.title}\n{s.body}" for s in summary.sections]


def _urls(summary: Summary) -> set[str]:
    return {m.group(0) for t in _texts(summary) for m in URL_RE.finditer(t)}


@pytest.mark.slow
def test_english_period_summary_of_a_team_chat(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    summary = _team_week(store, embedder, settings, "en")
    assert summary.engine == "extractive"
    assert summary.language == "en"
    assert summary.summary.startswith("The chat had 6 conversations; the busiest were about")
    # Who said what: each message of the digest is attributed (retold or quoted).
    assert re.search(r"\b(?:Alice|Bob|Carol) (?:says|asks|said|asked)\b", summary.summary)
    titles = " ".join(s.title.lower() for s in summary.sections)
    assert "release" in titles
    assert "ramen" in titles or "lunch" in titles
    threads = [s for s in summary.sections if re.match(r"\d+ messages from", s.body)]
    assert len(threads) >= 2
    for section in threads:
        assert re.match(
            r"\d+ messages from \d+ participants, 6 May\.$", section.body.splitlines()[0]
        )
        # What it is about, never who talked (the lines say who).
        assert not re.search(r"\b(?:Alice|Bob|Carol|Dave)\b", section.title), section.title
    ids = summary.important_messenger_message_ids
    assert set(ids) <= {str(i) for i in range(1, len(TEAM_CHAT) + 1)}
    cited = re.findall(r"https://t\.me/platform_team/(\d+)", "\n".join(_texts(summary)))
    assert set(ids) == set(cited)
    # Links are message links built in code; a message's own URL shows as its host only.
    assert _urls(summary)
    schemed = [url for url in _urls(summary) if "://" in url]
    assert all(url.startswith("https://t.me/platform_team/") for url in schemed)
    assert "https://docs.example.com" not in "\n".join(_texts(summary))


@pytest.mark.slow
def test_quotes_are_verbatim_in_their_own_language(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    summary = _team_week(store, embedder, settings, "ru")
    assert "«flaky Redis test»" in summary.summary  # English topics quoted as written
    assert " пишет: «" in summary.summary
    assert summary.summary.endswith("Сообщения цитируются на языке оригинала.")
    assert "перев" not in summary.summary.lower()  # it never claims a translation
    quotes = [q.split("»")[0] for q in summary.summary.split("«")[1:]]
    assert quotes
    for quote in quotes:
        assert any(quote.rstrip("…") in text for _, text, _ in TEAM_CHAT), quote
    assert "сообщени" in summary.sections[0].body.splitlines()[0]


@pytest.mark.slow
def test_russian_channel_in_russian_needs_no_language_note(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    summary = summarize_period(
        store, embedder, settings, in_period(RU, START, START + 30 * WEEK, "ru")
    )
    assert summary.summary.startswith("6 мая канал «Базы данных» публикует пост: «")
    assert "языке оригинала" not in summary.summary
    assert "публикац" in summary.sections[0].body
    english = summarize_period(
        store, embedder, settings, in_period(RU, START, START + 30 * WEEK, "en")
    )
    assert english.summary.startswith("On 6 May, “Базы данных” posted “")
    assert english.summary.endswith("Messages are quoted in their original language.")


@pytest.mark.slow
@pytest.mark.parametrize("ref", [TEAM, RU, OPS])
@pytest.mark.parametrize("language", ["en", "ru"])
def test_no_period_wording_in_any_source_summary(
    store: SQLiteStore, embedder: Embedder, settings: Settings, ref: str, language: str
) -> None:
    # The sources hold "Lunch today?", "Сегодня вечером…" and "На этой неделе…".
    summary = summarize_source(store, embedder, settings, about_source(ref, language))
    assert summary.summary
    for text in _texts(summary):
        assert find_period_wording(text) == [], text


@pytest.mark.slow
def test_source_summary_describes_the_source(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    summary = summarize_source(store, embedder, settings, about_source(TEAM, "en"))
    assert summary.summary.startswith(
        "“Platform Team” is a chat: 4 participants have written in it."
    )
    assert "Its conversations are about ramen place, release branch and flaky Redis test." in (
        summary.summary
    )
    russian = summarize_source(store, embedder, settings, about_source(RU, "ru"))
    assert russian.summary.startswith("«Базы данных» — канал.")
    assert len(summarize_source(store, embedder, settings, about_source(RU, "ru", 3)).sections) == 1


def test_prompt_injection_through_the_extractive_engine(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    summary = summarize_period(store, embedder, settings, in_period(OPS, START, START + WEEK, "en"))
    inputs = {str(500 + i) for i in range(8)}
    assert set(summary.important_messenger_message_ids) <= inputs
    assert "999999" not in summary.important_messenger_message_ids
    assert all(url.startswith("https://t.me/c/1500000003/") for url in _urls(summary))
    text = "\n".join(_texts(summary))
    assert "evil.example/" not in text
    assert "](" not in text  # no markdown link or image survives a quote


def test_an_unsupported_language_names_what_it_can_write(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    with pytest.raises(UnsupportedLanguage) as info:
        _team_week(store, embedder, settings, NO_PACK)
    assert info.value.field == "language"
    assert "en (English), ru (Russian)" in str(info.value)
    assert "LLM endpoint" in str(info.value)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (
            lambda s, e, c: summarize_period(s, e, c, in_period(TEAM, START, START + WEEK, "xx")),
            "language",
        ),
        (
            lambda s, e, c: summarize_period(s, e, c, in_period(TEAM, START, START, "en")),
            "ended_at",
        ),
        (
            lambda s, e, c: summarize_period(s, e, c, in_period(TEAM, START + WEEK, START, "en")),
            "ended_at",
        ),
        (lambda s, e, c: summarize_source(s, e, c, about_source(TEAM, "en", 0)), "messages_limit"),
        (
            lambda s, e, c: summarize_source(s, e, c, about_source(TEAM, "en", 5001)),
            "messages_limit",
        ),
    ],
)
def test_bad_requests_name_their_field(
    store: SQLiteStore, embedder: Embedder, settings: Settings, call: Any, field: str
) -> None:
    with pytest.raises(InvalidRequest) as info:
        call(store, embedder, settings)
    assert info.value.field == field


def test_an_empty_period_is_a_normal_answer(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    later = START + 50 * WEEK
    summary = summarize_period(
        store, embedder, settings, in_period(TEAM, later, later + WEEK, "en")
    )
    assert summary.summary == (
        "There are no messages from 2025-04-21 09:00 UTC to 2025-04-28 09:00 UTC."
    )
    assert summary.sections == []
    assert summary.important_messenger_message_ids == []
    russian = summarize_period(
        store, embedder, settings, in_period(TEAM, later, later + WEEK, "ru")
    )
    assert russian.summary.endswith("сообщений нет.")


@pytest.mark.slow
def test_vectors_are_computed_once_and_stored(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    counting = CountingEmbedder(embedder)
    source_id = store.get_source_by_id(1).id
    assert len(store.messages_without_vectors(source_id, embedder.model_name)) == len(TEAM_CHAT)
    summarize_period(store, counting, settings, in_period(TEAM, START, START + WEEK, "en"))
    assert counting.passages == len(TEAM_CHAT)
    assert store.flush_writes()  # a summary's vectors are stored by the background writer
    assert store.messages_without_vectors(source_id, embedder.model_name) == []
    summarize_period(store, counting, settings, in_period(TEAM, START, START + 2 * WEEK, "ru"))
    assert counting.passages == len(TEAM_CHAT)  # read back, not embedded again


@pytest.mark.slow
def test_same_input_same_summary_and_cache_hit(
    store: SQLiteStore, embedder: Embedder, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _team_week(store, embedder, settings, "en")
    assert store.flush_writes()  # the result is cached by the background writer

    def fail(*_: Any, **__: Any) -> Summary:
        raise AssertionError("recomputed instead of read from the cache")

    monkeypatch.setattr(OFFLINE, "summarize", fail)
    again = summarize_period(
        store, embedder, settings, in_period("t.me/platform_team", START, START + WEEK, "en")
    )
    assert again.source_ref == "t.me/platform_team"
    assert (again.summary, again.sections) == (first.summary, first.sections)


def test_unknown_source_and_llm_without_endpoint(
    store: SQLiteStore, embedder: Embedder, settings: Settings
) -> None:
    with pytest.raises(SourceNotFound):
        summarize_period(
            store, embedder, settings, in_period("@nobody_here", START, START + WEEK, "en")
        )
    llm_only = settings.replace(summary={"engine": "llm"})
    with pytest.raises(ConfigError):
        summarize_period(store, embedder, llm_only, in_period(TEAM, START, START + WEEK, "en"))


def _quotes(text: str) -> list[str]:
    return re.findall(r"“([^”]*)”", text) + re.findall(r"«((?:[^«»]|«[^«»]*»)*)»", text)


@pytest.mark.parametrize("ref", [TEAM, RU, OPS])
@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.slow
def test_digest_quotes_are_exact_or_cut_and_titles_are_phrases(
    store: SQLiteStore, embedder: Embedder, settings: Settings, ref: str, language: str
) -> None:
    source = store.get_source(parse_ref(ref))
    lines = [
        one_line(m.text)
        for m in store.recent_messages(source.id, 100, MessageFilter(with_text_only=True))
    ]
    for summary in (
        summarize_period(
            store, embedder, settings, in_period(ref, START, START + 30 * WEEK, language)
        ),
        summarize_source(store, embedder, settings, about_source(ref, language)),
    ):
        titles = {source.title.lower(), "platform team", "базы данных", "ops room"}
        # Topic phrases in another script are quoted too; they come from the titles.
        titles |= {p.lower() for s in summary.sections for p in s.title.split(", ")}
        quotes = [q for q in _quotes(summary.summary) if q.lower() not in titles]
        # English chat digests retell messages in reported speech, without quotes.
        assert quotes or language == "en", summary.summary
        for quote in quotes:
            assert balanced(quote), quote
            assert any(quote.removesuffix("…") in line for line in lines), quote
        for section in summary.sections:
            for phrase in section.title.split(", "):
                words = phrase.split()
                if len(words) == 1 and re.search("[а-яё]", phrase, re.IGNORECASE):
                    # A lone Russian word is in the nominative (or an acronym).
                    parses = analyzer("ru").parse(phrase.lower())
                    nominative = any(p.tag.case == "nomn" for p in parses)
                    assert phrase.isupper() or nominative, section.title
