"""Language packs: one interface, three languages; counts agree, every template renders,
sentences never end after an abbreviation, each message's language is detected."""

from __future__ import annotations

import ast
import itertools
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from summary_data import NO_PACK

from toolkit.errors import UnsupportedLanguage
from toolkit.lang import CODES, pack, quotation_marks
from toolkit.lang.base import LanguagePack
from toolkit.lang.detect import languages
from toolkit.lang.script import letters
from toolkit.models import Message, SourceKind
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.choose.acts import Act, act_of, agrees, declines, plans
from toolkit.summarize.extractive.draft import quotes
from toolkit.summarize.extractive.draft.dates import ambiguous_clock, named_day_only, planned_for
from toolkit.summarize.extractive.draft.quotes import balanced, cut
from toolkit.summarize.extractive.draft.tokens import is_content_token
from toolkit.summarize.extractive.engine import summarize_extractive
from toolkit.summarize.period_wording import split_sentences

COUNTS = (1, 2, 5, 21)
ENGINE = Path(__file__).resolve().parents[3] / "toolkit" / "summarize" / "extractive"


@pytest.mark.parametrize(
    ("code", "noun", "case", "expected"),
    [
        ("en", "message", "nomn", ["1 message", "2 messages", "5 messages", "21 messages"]),
        ("en", "participant", "gent", ["1 participant", "2 participants", "5 participants",
                                       "21 participants"]),
        ("ru", "message", "nomn", ["1 сообщение", "2 сообщения", "5 сообщений", "21 сообщение"]),
        ("ru", "post", "nomn", ["1 публикация", "2 публикации", "5 публикаций", "21 публикация"]),
        ("ru", "participant", "gent", ["1 участника", "2 участников", "5 участников",
                                       "21 участника"]),
        ("ru", "conversation", "nomn", ["1 разговор", "2 разговора", "5 разговоров",
                                        "21 разговор"]),
        ("uk", "message", "nomn", ["1 повідомлення", "2 повідомлення", "5 повідомлень",
                                   "21 повідомлення"]),
        ("uk", "participant", "nomn", ["1 учасник", "2 учасники", "5 учасників", "21 учасник"]),
        ("uk", "participant", "gent", ["1 учасника", "2 учасників", "5 учасників",
                                       "21 учасника"]),
        ("uk", "post", "nomn", ["1 допис", "2 дописи", "5 дописів", "21 допис"]),
        ("uk", "conversation", "nomn", ["1 розмова", "2 розмови", "5 розмов", "21 розмова"]),
    ],
)  # fmt: skip
def test_counts_agree_with_their_numbers(
    code: str, noun: str, case: str, expected: list[str]
) -> None:
    assert [pack(code).counted(n, noun, case) for n in COUNTS] == expected


@pytest.mark.parametrize("code", CODES)
def test_every_pack_has_the_same_templates_and_nouns(code: str) -> None:
    assert set(pack(code).templates) == set(pack("en").templates)
    assert set(pack(code).nouns) >= {"message", "participant", "post", "conversation", "other"}


@pytest.mark.parametrize(("code", "n"), list(itertools.product(CODES, COUNTS)))
def test_every_template_renders_in_its_language(code: str, n: int) -> None:
    book = pack(code)
    day = datetime(2026, 10, 21, 14, 5)
    # Names stay as the chat writes them: these are in the pack's own script.
    latin = book.script == "latin"
    ann, bob, person = ("Ann", "Bob", "Person") if latin else ("Аня", "Боб", "Гость")
    initial = 65 if latin else 0x410  # A, B … or А, Б …
    values = {
        "who": book.people([f"{person} {chr(initial + i)}." for i in range(n)]),
        "whom": bob,
        "origin": bob,
        "agreer": bob,
        "clauses": "x",
        "asker": ann,
        "answerer": bob,
        "quote": book.quote("q"),
        "said": book.quote("s"),
        "question": book.quote("q?"),
        "answer": book.quote("a"),
        "proposal": book.quote("p"),
        "title": book.quote("T"),
        "topic": book.quote("Deploys"),
        "zone": "+2",  # a zone's label ("UTC+2", "Europe/Kyiv") is data, as a number is
        "topics": book.topic_titles([f"T{i}" for i in range(n)], 3),
        "messages": book.counted(n, "message"),
        "posts": book.counted(n, "post"),
        "participants": book.counted(n, "participant"),
        "readers": book.number(n),
        "read": book.number(n),
        "total": book.counted(n, "message", "gent"),
        "year": day.year,
        "conversations": book.counted(n, "conversation"),
        "count": book.counted(n, "post"),
        "start": book.day(day),
        "end": book.day(day),
        "span": book.say("span", start=book.day(day), end=book.day(day)),
        "moment": book.moment(day),
        "when": book.moment(day),
        "day": book.day(day),
        "month": book.months[0],
        "time": "14:05",
        "host": book.quote("example.org"),
        "sentence": f"{book.day(day)}.",
        "n": n,
    }
    for key in book.templates:
        text = book.sentence(key, **values)
        assert "{" not in text, (key, text)
        assert "}" not in text, (key, text)
        assert balanced(text), (key, text)
        if key != "retold":  # the pack's reported speech fills it
            own, total = letters(outside_quotes(text), book.script)
            assert own == total, (key, text)  # the engine's own words are in its script


def outside_quotes(text: str) -> str:
    """``text`` without its quotations (every pack's, and "…")."""
    marks = {**quotation_marks(), '"': '"'}
    quoted = "|".join(f"{re.escape(o)}[^{re.escape(c)}]*{re.escape(c)}" for o, c in marks.items())
    return re.sub(quoted, " ", text)


@pytest.mark.parametrize("code", CODES)
def test_the_engine_reads_each_pack_quotation_marks(code: str) -> None:
    book = pack(code)
    assert balanced(f"x {book.quote('q (a)')} y")
    assert not balanced(f"x {book.open_quote}q")
    # A cut inside a quotation goes back to before its opening mark.
    assert cut(f"one two {book.open_quote}three four five six seven", 20) == "one two…"
    said = f"Ann said {book.quote('Stop.')} Then we go."
    assert len(split_sentences(said)) == 2, split_sentences(said)


def test_a_mark_that_closes_one_language_and_opens_another_closes_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # German quotes „…“ and English “…”: the same “ closes one and opens the other.
    monkeypatch.setattr(quotes, "_pairs", lambda: {"(": ")", "„": "“", "“": "”"})
    assert balanced("„Kommst du?“, und “yes”")
    assert quotes.unmatched_opener("Er sagt „komm") == 8


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize(
    "name", ["Alice Example", "Me", "Ann K.", "Анна Шевченко", "Їжак", "Quinn P.", "李雷"]
)
def test_names_are_written_as_the_chat_shows_them(code: str, name: str) -> None:
    assert pack(code).name(name) == name  # never transliterated, in any pack
    assert pack(code).name(f"  {name} ") == name


def test_people_keep_their_names_and_count_the_others_in_the_language() -> None:
    assert pack("ru").people(["Ann K.", "Bob"], total=5) == "Ann K., Bob и ещё 3 участника"
    assert pack("en").people(["Анна Шевченко"]) == "Анна Шевченко"
    assert pack("uk").people(["Alice Example", "Me"]) == "Alice Example і Me"


@pytest.mark.parametrize(
    "text",
    [
        "Mr. Smith will call at noon. Then we go.",
        "Ann K. said so. Then we go.",
        "Это т.е. одно предложение. Потом второе.",
        "Це т.зв. одне речення. Потім друге.",
    ],
)
def test_no_sentence_ends_after_an_abbreviation_or_an_initial(text: str) -> None:
    assert len(split_sentences(text)) == 2, split_sentences(text)


@pytest.mark.parametrize("code", CODES)
def test_no_sentence_ends_inside_a_quotation(code: str) -> None:
    # "…? / …" inside one quotation was sent to the model as two lines (issue 42).
    book = pack(code)
    said = f"Ann asks: {book.quote('Are you coming? I wait here.')} Then she left."
    assert split_sentences(said) == [
        f"Ann asks: {book.quote('Are you coming? I wait here.')} ",
        "Then she left.",
    ]
    straight = 'Bob: "Ready? Go." Fine. Then "ok." Done.'
    assert len(split_sentences(straight)) == 4, split_sentences(straight)
    # A mark that never closes ends its quotation at the next boundary, as before.
    unclosed = f"Ann writes: {book.open_quote}really? yes. More here."
    assert len(split_sentences(unclosed)) == 3, split_sentences(unclosed)


@pytest.mark.parametrize(
    ("code", "proposal", "agreement", "refusal", "plan"),
    [
        ("en", "Let's meet on Friday", "Sounds good!", "I can't, sorry", "I'll book the room"),
        ("ru", "Давайте встретимся в пятницу", "Договорились", "Не получится", "Я сделаю отчёт"),
        ("uk", "Давайте зустрінемось у п'ятницю", "Домовились", "Не можу", "Я зроблю звіт"),
    ],
)
def test_cue_words_are_the_messages_packs(
    code: str, proposal: str, agreement: str, refusal: str, plan: str
) -> None:
    book = pack(code)
    assert act_of(proposal, book) is Act.PROPOSAL
    assert agrees(agreement, book)
    assert declines(refusal, book)
    assert not agrees(refusal, book)
    assert plans(plan, book)


def test_a_language_without_a_pack_is_refused_with_the_way_out() -> None:
    with pytest.raises(UnsupportedLanguage) as error:
        pack(NO_PACK)
    assert "MLENS_LLM_BASE_URL" in str(error.value)
    assert "uk (Ukrainian)" in str(error.value)


def test_each_message_gets_its_own_language_with_the_chat_as_prior() -> None:
    chat = [
        "Привет! Сегодня идём в кино, ты с нами?",
        "Ну да",
        "Я думаю, что фильм будет отличный, билеты уже купил",
        "Привіт! Я буду в офісі о дев'ятій, приходьте всі",
        "The meeting notes are in the shared folder, please read them",
        "👍",
    ]
    assert languages(chat) == ["ru", "ru", "ru", "uk", "en", None]


def test_the_engine_core_holds_no_word_of_any_language() -> None:
    """No string literal in the engine core has three letters in a row (a word): words
    live in the packs."""
    found = []
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Docstrings (of modules, functions, classes and attributes) are prose about code.
        docstrings = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docstrings or node.value.isidentifier():
                    continue  # an identifier: a key, an attribute, an exported name
                words = [w for w in node.value.replace("{", " ").split() if w.isalpha()]
                if any(len(w) >= 3 and w.islower() and w not in KEYS for w in words):
                    found.append((path.name, node.value))
    assert not found, found


KEYS = frozenset(pack("en").templates) | frozenset(pack("en").nouns) | {
    "nomn", "gent", "period", "source", "chat", "channel", "proposal", "decision",
    "agreement", "refusal", "plan", "when", "float64", "posted", "said", "asked", "shared",
    "proposed", "decided", "latin", "cyrillic", "chatter", "question", "statement", "share",
}  # fmt: skip
"""Identifiers that are not words of a language: template keys, cue names, act names."""


def test_a_pack_is_a_language_pack() -> None:
    assert all(isinstance(pack(code), LanguagePack) for code in CODES)
    assert {pack(code).script for code in CODES} == {"latin", "cyrillic"}


@pytest.mark.parametrize("text", ["You're kidding!", "What a game!", "Get out of here!"])
def test_an_exclamation_is_quoted_not_retold_as_a_claim(text: str) -> None:
    assert pack("en").retell is not None
    assert pack("en").retell(text, "Ann", "Bob", ("Ann", "Bob")) is None
    said = pack("en").retell("I baked cookies!", "Ann", "Bob", ("Ann", "Bob"))
    assert said is not None
    assert said.startswith("Ann baked cookies")


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        ("en", "I'll run the backfill job Wednesday night", datetime(2024, 5, 8, 20, 0)),
        ("ru", "Давайте в пятницу в 10:00 в офисе", datetime(2024, 5, 10, 10, 0)),
        ("uk", "Давайте в п'ятницю о 10:00 в офісі", datetime(2024, 5, 10, 10, 0)),
        ("en", "We had the review this morning", None),  # before the message: no plan
        ("en", "We will see each other again", None),  # no time expression at all
    ],
)
def test_a_plan_is_resolved_to_its_date_from_its_message(
    code: str, text: str, expected: datetime | None
) -> None:
    posted = datetime(2024, 5, 6, 10, 38)  # a Monday
    assert planned_for(text, posted, pack(code)) == expected


def test_a_week_or_more_is_no_date_and_a_day_is_a_day() -> None:
    posted = datetime(2024, 5, 6, 10, 38)
    assert named_day_only(datetime(2024, 5, 13, 10, 38), posted) is None  # "next week"
    assert named_day_only(datetime(2024, 5, 7, 10, 38), posted) is True  # "tomorrow"
    assert named_day_only(datetime(2024, 5, 8, 20, 0), posted) is False  # "Wednesday night"


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        ("en", "[file] report.pdf", "[file] report.pdf"),
        ("ru", "[file] report.pdf", "[файл] report.pdf"),
        ("uk", "[video_file] demo.mp4", "[відео] demo.mp4"),
        ("ru", "[sticker] 😀", "[стикер] 😀"),
        ("ru", "[hologram] x", "[hologram] x"),  # a kind no pack knows stays as it is
        ("ru", "see [file] later", "see [file] later"),  # only a mark that opens a message
    ],
)
def test_an_attachment_mark_is_written_in_the_pack_language(
    code: str, text: str, expected: str
) -> None:
    assert pack(code).marked(text) == expected


@pytest.mark.parametrize("code", CODES)
def test_every_pack_names_the_same_attachment_kinds(code: str) -> None:
    assert set(pack(code).media) == set(pack("en").media)


def test_a_russian_digest_quotes_an_attachment_in_russian() -> None:
    start = datetime(2024, 5, 6, 9, 0, tzinfo=UTC)
    said = [
        ("anna", "Всем привет, вот отчёт за квартал по продажам и расходам", None),
        ("anna", "Посмотрите фото с конференции, там все слайды", None),
        ("boris", "[file] report.pdf", None),
        ("vera", "", "photo"),
        ("vera", "Отличные слайды, спасибо за отчёт по продажам", None),
    ]
    messages = [
        Message(source_id=1, messenger_message_id=i, posted_at=start + timedelta(minutes=i),
                text=text, sender_peer_id=who, sender_name=who.capitalize(), media=media)
        for i, (who, text, media) in enumerate(said)
    ]  # fmt: skip
    vectors = np.random.default_rng(0).normal(size=(len(messages), 16)).astype("float32")
    ctx = SummaryContext(
        family="period", kind=SourceKind.CHAT, title="t", language="ru",
        started_at=start, ended_at=start + timedelta(hours=1),
    )  # fmt: skip
    summary = summarize_extractive(messages, vectors, ctx, source_ref="x", link=lambda i: "")
    assert "«[файл] report.pdf»" in summary.summary
    assert "[file]" not in summary.summary
    assert "[photo]" not in summary.summary


@pytest.mark.parametrize(
    ("code", "general", "seventh"),
    [("en", "General", "Topic 7"), ("ru", "Общее", "Тема 7"), ("uk", "Загальне", "Тема 7")],
)
def test_a_topic_without_a_title_is_named_in_the_pack_language(
    code: str, general: str, seventh: str
) -> None:
    assert pack(code).topic_title(1, general=True) == general
    assert pack(code).topic_title(7) == seventh


@pytest.mark.parametrize(
    ("code", "text", "says_you"),
    [
        ("en", "Can you send it?", True),
        ("en", "Send the file please", False),
        ("ru", "Ты пришлёшь файл?", True),
        ("ru", "Пришлите файл", False),
        ("uk", "Ви надішлете файл?", True),
        ("uk", "Надішліть файл", False),
    ],
)
def test_the_second_person_is_the_pack_cue(code: str, text: str, says_you: bool) -> None:
    assert bool(pack(code).cue.you.search(text)) is says_you


@pytest.mark.parametrize(
    ("code", "text", "ambiguous"),
    [
        ("en", "Let's meet at 7", True),
        ("en", "Let's meet at 7 pm", False),
        ("ru", "Встречаемся в 7", True),
        ("ru", "Встречаемся в 7 утра", False),
        ("ru", "Встречаемся через 3 дня в 7", True),  # "3 дня" is three days, not 3 p.m.
        ("uk", "Зустрічаємось о 7 вечора", False),
    ],
)
def test_a_clock_time_is_ambiguous_without_its_half_of_the_day(
    code: str, text: str, ambiguous: bool
) -> None:
    assert ambiguous_clock(text, pack(code)) is ambiguous


@pytest.mark.parametrize("token", ["lol", "XD", "hahaha", "ахах", "хахах"])
def test_laughter_of_any_pack_is_no_content(token: str) -> None:
    assert not is_content_token(token)
    assert not is_content_token(token, "uk")
