"""The model's text is plain text: no markup, no entity, no URL or bare host it wrote;
only links built in code from message ids survive, and the answer is bounded."""

from __future__ import annotations

import html
from collections.abc import Iterator
from datetime import timedelta

import nh3
import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json
from summary_data import START, in_period

from toolkit.embeddings import Embedder
from toolkit.models import Summary
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.answer import (
    MAX_ITEM_CHARS,
    MAX_SECTIONS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    LLMSummary,
    clean_bounded,
    clean_summary,
)
from toolkit.summarize.llm.plaintext import URL_ANYWHERE, cut, plain_text, without_loops
from toolkit.summarize.personal import Marks, mask
from toolkit.summarize.pipeline import summarize_period

TEAM = "@platform_team"
DAY = timedelta(days=1)
WINDOW = in_period(TEAM, START, START + DAY, "en")

HOSTILE = [
    ("<scr<b>ipt>alert(1)</script>", "ipt>alert(1)"),
    ("<sc<script>ript>alert(1)</sc</script>ript>", None),
    ("ok <img src=x onerror=alert(1)", "ok"),
    ('<img src="x" onerror="alert(1)">pic', "pic"),
    ("&lt;script&gt;alert(1)&lt;/script&gt;", ""),
    ("&amp;lt;iframe src=x&amp;gt;", ""),
    ("&#60;svg onload=alert(1)&#62;", ""),
    ('<a href="javascript:alert(1)">Release</a> notes', "Release notes"),
    ("click javascript:alert(document.cookie) now", "click now"),
    ("JaVaScRiPt :alert(1) end", "end"),
    ("see data:text/html;base64,PHNjcmlwdD4= here", "see here"),
    ("open tg://resolve?domain=evil_bot please", "open please"),
    ("login at evil.example/login today", "login at today"),
    ("visit phish.top or www.bad.com", "visit or"),
    ("write bob@evil.com", "write"),
    ("[verify](https://evil.example/x) your account", "verify your account"),
    ("![pixel](https://evil.example/p.png)tracked", "tracked"),
    ("копия на пример.рф/путь тут", "копия на тут"),
    ("https://t.me/platform_team/12 copied", "copied"),
    ("<!-- hidden --><b>bold</b> and <i>italic</i>", "bold and italic"),
    ("<style>body{display:none}</style>styled", "styled"),
]


def no_markup(text: str) -> bool:
    """Whether the sanitizer finds nothing to remove in ``text`` (entities aside)."""
    return html.unescape(nh3.clean(text, tags=set())) == text


@pytest.mark.parametrize(("text", "expected"), HOSTILE)
def test_hostile_text_becomes_plain_text(text: str, expected: str | None) -> None:
    out = plain_text(text)
    if expected is not None:
        assert out == expected
    assert no_markup(out)
    assert "<script" not in out.lower()
    assert "javascript" not in out.lower()
    assert not URL_ANYWHERE.search(out)
    assert plain_text(out) == out  # a fixed point


@pytest.mark.parametrize(
    "text",
    [
        "Node.js and README.md, e.g. 3.14, the U.S. team",
        "Meet at 10:30, ratio 2:1, a < b and c > d",
        "Key data: revenue grew; see section 2.",
        "Тим предложил перенести релиз на четверг.",
    ],
)
def test_plain_prose_is_kept(text: str) -> None:
    assert plain_text(text) == text


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def _texts(summary: Summary) -> list[str]:
    return [summary.summary] + [t for s in summary.sections for t in (s.title, s.body)]


@pytest.mark.slow
def test_hostile_answers_come_out_plain_in_summary_titles_and_bodies(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder, summary_sources: None
) -> None:
    # Each body is hostile text around what message 12 says (a line whose words are in no
    # message it cites is dropped before any cleaning matters).
    said = "We ship release 2.4 to production on Thursday after the backfill."
    sections = [(text, f"{text} {said}", ["12"]) for text, _ in HOSTILE]
    llm.push(Reply(content=summary_json(" ".join(t for t, _ in HOSTILE), sections, ["12"])))
    summary = summarize_period(
        store, embedder, llm_settings(llm), in_period(TEAM, START, START + DAY, "en")
    )
    window = {f"https://t.me/platform_team/{i}" for i in range(1, 21)}
    for text in _texts(summary):
        urls = {url.rstrip(").,") for url in URL_ANYWHERE.findall(text)}
        # The sections' links are message 12's; a summary paragraph that named a host
        # is the offline engine's, whose links are the window's (issue 29).
        assert urls <= (window if text == summary.summary else {"https://t.me/platform_team/12"})
        assert "<script" not in text.lower()
        assert "onerror" not in text.lower()
        assert "javascript" not in text.lower()
        assert no_markup(text)
    assert len(summary.sections) <= MAX_SECTIONS
    for section in summary.sections:
        assert section.body.endswith("(https://t.me/platform_team/12)")


@pytest.mark.slow
def test_an_answer_is_cut_to_its_bounds(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder, summary_sources: None
) -> None:
    huge = "ship the release " * 6_000  # message 12's words, far past every bound
    sections = [(huge, huge, ["12"])] * 40
    llm.push(Reply(content=summary_json(huge, sections, ["12"] * 500)))
    settings = llm_settings(llm, llm_max_answer_bytes=10_000_000)
    summary = summarize_period(store, embedder, settings, WINDOW)
    assert len(summary.summary) <= MAX_SUMMARY_CHARS
    assert summary.summary.endswith("…")
    assert len(summary.sections) <= MAX_SECTIONS
    assert all(len(s.title) <= MAX_TITLE_CHARS for s in summary.sections)
    assert summary.important_messenger_message_ids == ["12"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", ["a", "x.", "ab-", "a@", "name+tag.", "x" * 40 + "."])
@pytest.mark.slow
def test_a_long_run_of_url_characters_is_cleaned_in_one_pass(unit: str) -> None:
    # A model may repeat a message's 100 KB token (base64, a hash list). Each of the URL
    # pattern's alternatives starts at the start of a run, not at each of its characters:
    # an e-mail alternative tried everywhere took 68 s for 80,000 letters (a hang).
    run = unit * (200_000 // len(unit))
    cleaned = plain_text(f"see {run} now")
    assert cleaned.startswith("see ")
    assert cleaned.endswith(" now")
    assert URL_ANYWHERE.search(cleaned) is None


@pytest.mark.parametrize(
    "unit",
    [
        "<b>ship</b> the https://evil.example/a?x=1 release +1 555 010 0199 ",
        "see <img src=x onerror=alert(1)> evil.example/path and bob@mail.example now ",
        "длинный-длинный текст без ссылок, ",
    ],
)
@pytest.mark.slow
def test_a_long_answer_is_cleaned_only_as_far_as_its_bound_reaches(unit: str) -> None:
    # The bounded read gives what cleaning the whole answer gives.
    text = " ".join(f"{i} {unit}" for i in range(300))
    marks = Marks()
    whole = cut(without_loops(plain_text(mask(text, marks))), MAX_ITEM_CHARS)
    assert clean_bounded(text, MAX_ITEM_CHARS, marks) == whole
    assert len(whole) <= MAX_ITEM_CHARS
    assert "evil" not in whole
    assert "<" not in whole


def test_a_loop_is_written_once() -> None:
    looped = (
        "Lounge - 2026-10-15 04:39 to 04:40, Lounge," + " Lounge - 2026-10-15 04:39 to 04:40," * 9
    )
    assert without_loops(looped) == "Lounge - 2026-10-15 04:39 to 04:40, Lounge"
    # Short clauses repeat in good text; long ones that differ are kept.
    text = "Ann asked about the deploy. Bob said yes, yes, yes. The deploy moved to Friday."
    assert without_loops(text) == text


def test_a_looping_answer_is_cleaned_to_one_of_each() -> None:
    section = {"title": "Deploy", "body": "Moved to Friday.", "message_ids": ["1"]}
    answer = LLMSummary.model_validate(
        {
            "summary": "The team moved the deploy. " * 5,
            "sections": [section, {**section, "message_ids": ["2"]}, {**section, "title": "Q"}],
            "important_message_ids": ["1"],
        }
    )
    cleaned = clean_summary(answer, allowed_ids={"1", "2"})
    assert cleaned.summary == "The team moved the deploy."
    assert [s.title for s in cleaned.sections] == ["Deploy", "Q"]
