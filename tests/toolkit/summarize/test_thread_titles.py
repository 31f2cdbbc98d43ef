"""A thread's title says what the thread is about, in the requested language whole
(issue 40, item 6): never who talked, never a quote cut to a title's length, never a
word of a greeting, a thanks or a leave-taking, never a word cut short; a thread in
another language is titled by an acronym it carries, else by when it was."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

from tests.toolkit.summarize.test_quotes_titles import chat, digest
from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.lang.chatter import without_chatter
from toolkit.models import Message, SectionKind, Summary
from toolkit.summarize.extractive.choose.keyphrases import key_phrases, neutral_name


def titles(summary: Summary) -> list[str]:
    return [s.title for s in summary.sections if s.kind is SectionKind.THREAD]


def names(messages: Sequence[Message]) -> set[str]:
    return {w for m in messages for w in str(m.sender_name).split()}


# A chat about a node's disk where two people say goodbye, greet, and thank.
NODE = [
    ("Pamela Reyes", "Hi everyone! Good morning!"),
    ("Pamela Reyes", "My LND node keeps restarting, the SSD seems to be full."),
    ("Victor Hale", "Check the LND logs, the SSD fills up when the channel backup grows."),
    ("Pamela Reyes", "Pam here again: the SSD has 2 GB free after I cleaned the LND logs."),
    ("Victor Hale", "Then move the LND data to a bigger SSD, 1 TB is cheap now."),
    ("Pamela Reyes", "Thanks a lot, see you later!"),
]


@pytest.mark.slow
def test_a_title_is_what_not_who(embedder: Embedder) -> None:
    messages = chat(NODE)
    shown = titles(digest(embedder, messages, "en"))
    assert shown
    for title in shown:
        # no "Topic: Pamela Reyes and Victor Hale" (a time's colon, "09:02", is no label)
        assert not re.search(r":\s*\D", title), title
        assert not names(messages) & set(re.findall(r"\w+", title)), title
        assert "Pam" not in title.split(), title  # a participant's short name is who
        assert not re.search("[…“”]", title), title  # no quote cut to a title
    assert any("LND" in t or "SSD" in t for t in shown), shown


@pytest.mark.slow
@pytest.mark.parametrize("code", ["ru", "uk"])
def test_a_thread_in_another_language_names_its_acronym(embedder: Embedder, code: str) -> None:
    shown = titles(digest(embedder, chat(NODE), code))
    book = pack(code)
    assert shown
    for title in shown:
        # Written in the requested language whole: an acronym reads the same in any.
        rest = re.sub(r"\b[A-Z0-9]{2,}\b", "", title)
        assert not re.search(r"[A-Za-z]", rest), title
    assert any(book.say("thread_title_foreign", topic="") in t for t in shown), shown
    assert len(set(shown)) == len(shown), shown  # two threads on one acronym: one by time


SMALL_TALK = [
    ("Kira", "Morning all! How was the weekend?"),
    ("Lev", "Good, thanks! Yours?"),
    ("Kira", "Quiet, I mostly slept and read a little."),
    ("Lev", "Same here, it rained the whole time so I stayed in."),
]


@pytest.mark.slow
def test_without_a_topic_a_title_says_when_in_the_requested_language(embedder: Embedder) -> None:
    for code in ("en", "ru"):
        shown = titles(digest(embedder, chat(SMALL_TALK), code))
        for title in shown:
            assert not re.search("[«“…]", title), title
            assert not re.search(r"\b(?:Kira|Lev)\b", title), title
    for title in titles(digest(embedder, chat(SMALL_TALK), "ru")):
        assert not re.search(r"[A-Za-z]", title), title  # an English chat's words stay out


FAREWELLS = [
    ("Оля", "Народ, завтра едем на дачу. До встречи!"),
    ("Петя", "Народ, я привезу уголь. До встречи!"),
    ("Оля", "Народ, уголь есть, возьми решётку. До встречи!"),
    ("Петя", "Хорошо, решётку возьму. До встречи!"),
]


@pytest.mark.slow
def test_a_leave_taking_and_a_call_to_people_are_no_topic(embedder: Embedder) -> None:
    shown = titles(digest(embedder, chat(FAREWELLS), "ru"))
    assert shown
    for title in shown:
        assert not re.search(r"(?i)встреч|народ", title), title
    assert any("уголь" in t.lower() or "решётка" in t.lower() for t in shown), shown


def test_without_chatter_keeps_what_is_said_about_something() -> None:
    assert without_chatter("Привет всем! Кто знает, где купить шины?").strip() == (
        "Кто знает, где купить шины?"
    )
    assert "встреч" not in without_chatter("Хорошо, договорились. До встречи!")
    assert "Friends" not in without_chatter("Friends, the meetup moved to Friday.")
    assert "meetup moved to Friday" in without_chatter("Friends, the meetup moved to Friday.")


def test_a_word_cut_short_is_no_key_phrase() -> None:
    ru = pack("ru")
    texts = [
        "Как оформить совмещ в отчёте?",
        "Совмещ не попадает в отчёт за месяц.",
        "Совмещение должностей оформляется приказом.",
        "А совмещение по какой ставке считать?",
    ]
    found = key_phrases(texts, np.zeros(4, dtype=np.int_), top=3, packs=[ru] * 4)
    assert found[0]
    assert "совмещ" not in [p.lower() for p in found[0]], found


def test_an_english_first_name_is_no_key_phrase() -> None:
    en = pack("en")
    texts = [
        "Casey said the heatsink is too small.",
        "Ask Casey about the heatsink then.",
        "Casey wants a bigger heatsink and a fan.",
    ]
    found = key_phrases(texts, np.zeros(3, dtype=np.int_), top=3, packs=[en] * 3)
    assert "Casey" not in found[0], found
    assert "heatsink" in found[0], found


@pytest.mark.parametrize(
    ("phrase", "script", "neutral"),
    [
        ("LND", "latin", True),
        ("API", "cyrillic", True),
        ("Telegram", "cyrillic", True),  # a name in Latin letters in a Russian chat
        ("Telegram", "latin", False),  # an English chat's word: English
        ("Supreme Court", "latin", False),
        ("LOL", "latin", False),  # chatter
        ("ok", "cyrillic", False),
        ("кнопка", "cyrillic", False),
    ],
)
def test_a_neutral_name_reads_the_same_in_any_language(
    phrase: str, script: str, neutral: bool
) -> None:
    assert neutral_name(phrase, script) is neutral
