"""The acts a digest names hold in the messages: decisions, agreements, open questions,
plans and reported speech, against the calibration cases of ``digest_acts.jsonl`` and
the rules behind them (hedges, answers without a reply link, the source's own zone)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.lang import pack
from toolkit.models import Message, SectionKind, SourceKind, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.choose.acts import Act, act_of, agrees, plans, question_sentence
from toolkit.summarize.extractive.choose.scoring.rules import own
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.extractive.engine import summarize_extractive

# How sections tell acts, with the acts the old rules name (the shipped scorers decide
# less: ``test_act_scoring`` and ``python -m toolkit.evaluate.acts.loso`` measure them).
pytestmark = pytest.mark.usefixtures("rule_scorers")

CASES = DEV_DIR / "digest_acts.jsonl"
START = datetime(2026, 3, 6, 9, 0, tzinfo=UTC)  # a Friday


def _summary(case: dict[str, Any], language: str | None = None) -> Summary:
    tz = ZoneInfo(case["tz"])
    messages = [
        Message(
            source_id=1,
            messenger_message_id=m["id"],
            posted_at=START + timedelta(minutes=m["minute"]),
            text=m["text"],
            sender_name=m["sender"],
            sender_peer_id=m["sender"].lower(),
            reply_to=m["reply_to"],
        )
        for m in case["messages"]
    ]
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(len(messages), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ctx = SummaryContext(
        family="period",
        kind=SourceKind(case["kind"]),
        title="Calibration",
        language=language or case["lang"],
        started_at=START,
        ended_at=START + timedelta(days=1),
        timezone=tz,
    )
    return summarize_extractive(messages, vectors, ctx, source_ref="@case", link=lambda _: "")


def _case(
    rows: list[tuple[str, int, str, int | None]],
    *,
    lang: str = "en",
    kind: str = "chat",
    tz: str = "UTC",
) -> dict[str, Any]:
    """A case as ``digest_acts.jsonl`` writes one: (sender, minute, text, reply_to) rows,
    ids from 1."""
    messages = [
        {"id": n, "sender": who, "minute": minute, "text": text, "reply_to": reply}
        for n, (who, minute, text, reply) in enumerate(rows, 1)
    ]
    return {"lang": lang, "kind": kind, "tz": tz, "messages": messages}


def _claimed(summary: Summary, kind: SectionKind) -> list[str]:
    """The ids whose act a section of ``kind`` claims (each item's first id)."""
    return [
        item.messenger_message_ids[0]
        for section in summary.sections
        if section.kind is kind
        for item in section.items
    ]


def _cases() -> list[dict[str, Any]]:
    if not CASES.exists():
        return []
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]


_KIND = {
    "decision": SectionKind.DECISIONS,
    "agrees": SectionKind.DECISIONS,
    "open_question": SectionKind.OPEN_QUESTIONS,
    "plan": SectionKind.PLANS,
}


@pytest.mark.skipif(not CASES.exists(), reason="the dev data sit beside the repository")
@pytest.mark.parametrize("case", [c for c in _cases() if c["act"] in _KIND], ids=lambda c: c["id"])
def test_the_calibration_cases_hold(case: dict[str, Any]) -> None:
    summary = _summary(case)
    section = _KIND[case["act"]]
    if case["act"] == "agrees":
        claims = [
            item.messenger_message_ids
            for s in summary.sections
            if s.kind is section
            for item in s.items
        ]
        claimed = any(str(case["target"]) in ids[1:] for ids in claims)
    else:
        claimed = str(case["target"]) in _claimed(summary, section)
    if case["truth"]:
        assert claimed, (case["why"], summary.sections)
    else:
        assert not claimed, (case["why"], summary.sections)


def test_the_plan_time_is_the_sources_own() -> None:
    """ "At 13:40 tomorrow" said in Tokyo is 13:40 there, not 13:40 UTC or 04:40."""
    case = _case(
        [
            ("Ann", 0, "We take the bus to the trailhead at 13:40 tomorrow", None),
        ],
        tz="Asia/Tokyo",
    )
    summary = _summary(case)
    plans_ = next(s for s in summary.sections if s.kind is SectionKind.PLANS)
    assert "13:40" in plans_.body
    assert "04:40" not in plans_.body
    assert "7 March" in plans_.body or "March 7" in plans_.body


def test_an_ambiguous_clock_gives_no_time() -> None:
    """ "A bus at 1:40" may be night or afternoon: the plan is quoted with no moment."""
    case = _case(
        [
            ("Ann", 0, "We're taking a bus at 1:40", None),
        ]
    )
    summary = _summary(case)
    for section in summary.sections:
        assert "01:40" not in section.body
        assert "13:40" not in section.body


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("I think the room might be booked already", "en"),
        ("It's not confirmed yet until you get the QR code", "en"),
        ("I can't select I think it's booked", "en"),
        ("Может, уже забронировали?", "ru"),
        ("Квитки ще не оплатили", "uk"),
    ],
)
def test_hedged_negated_or_asked_is_no_decision(text: str, code: str) -> None:
    assert act_of(text, pack(code)) is not Act.DECISION


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Booked it, two tickets.", "en"),
        ("We booked the hostel in Shinjuku for 4 nights", "en"),
        ("Решили: релиз 3.2 выпускаем в четверг", "ru"),
        ("Забронювали хостел на три ночі", "uk"),
    ],
)
def test_a_plain_statement_of_a_decision_is_one(text: str, code: str) -> None:
    assert act_of(text, pack(code)) is Act.DECISION


def test_an_objection_or_a_question_back_is_no_agreement() -> None:
    en = pack("en")
    assert agrees("ok", en)
    assert agrees("Yes, 9:40 works", en)
    assert not agrees("ok but I'm at work till 8", en)
    assert not agrees("sure, what time?", en)


@pytest.mark.parametrize(
    ("text", "code", "expected"),
    [
        ("I'll book the bus for Friday", "en", True),
        ("We watched that film on Saturday, it was great", "en", False),
        ("Best of luck and enjoy your holidays!", "en", False),
        ("I might come on Friday", "en", False),
        ("Буду в офисе в пятницу к десяти", "ru", True),
        ("Удачи, хороших выходных!", "ru", False),
        ("Поїдемо у суботу о 9", "uk", True),
    ],
)
def test_plans_are_firm_statements_about_the_future(text: str, code: str, expected: bool) -> None:
    assert plans(text, pack(code)) is expected


@pytest.mark.parametrize(
    ("text", "code", "asked"),
    [
        (
            "Hi all! Which site did you book the bus on?",
            "en",
            "Which site did you book the bus on?",
        ),
        ("Вітаю! Чи можна перевезти кота в автобусі до Львова?", "uk", "Чи можна"),
        ("Merry Christmas everyone!", "en", None),
        ("How are you?", "en", None),
        ("Who knew?", "en", None),
        (
            "What does the new law change? Here is what you need to know: the deadline moves "
            "to May, fees stay the same and the forms are online from Monday.",
            "en",
            None,
        ),
        ("We climbed Mt. Fuji on Sunday. Who wants the photos?", "en", "Who wants the photos?"),
    ],
)
def test_the_question_sentence_is_the_one_that_asks(
    text: str, code: str, asked: str | None
) -> None:
    found = question_sentence(text, pack(code))
    if asked is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(asked)


def test_a_question_answered_later_without_a_reply_is_not_open() -> None:
    case = _case(
        [
            ("Ann", 0, "Does the hostel have lockers for bags?", None),
            ("Cat", 1, "I'm bringing snacks for the train", None),
            ("Cat", 2, "Also need to buy a charger", None),
            ("Cat", 3, "Ugh my phone is dying", None),
            ("Ben", 40, "The hostel lockers are free, bring a padlock", None),
        ]
    )
    assert "1" not in _claimed(_summary(case), SectionKind.OPEN_QUESTIONS)


def test_an_askers_own_never_mind_closes_the_question() -> None:
    case = _case(
        [
            ("Ann", 0, "Where do we pick up the rental car keys?", None),
            ("Ann", 200, "never mind, found it in the email", None),
        ]
    )
    assert _claimed(_summary(case), SectionKind.OPEN_QUESTIONS) == []


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("Are you just trying to talk with Natalie?", "whether Ugo"),
        ("Can you send me your ticket?", "Ugo's"),
    ],
)
def test_the_addressee_named_once_is_then_a_pronoun(text: str, wrong: str) -> None:
    from toolkit.lang.en.reported import report

    said = report(text, "Kai", "Ugo", ("Kai", "Ugo"))
    assert said is not None
    assert said.startswith("Kai asks Ugo")
    assert wrong not in said


@pytest.mark.parametrize(
    "text", ["here you go", "because when I got there it was closed", "u wana play tonight?"]
)
def test_an_unsure_rewrite_is_left_to_a_quote(text: str) -> None:
    from toolkit.lang.en.reported import report

    assert report(text, "Mary", "Susan", ("Mary", "Susan")) is None


def test_a_news_channel_reports_others_decisions_and_the_past_as_no_plan() -> None:
    """A channel's own decision says "we"; a headline about others' decision is news, and
    a report of last Saturday, or "died at 85", plans nothing."""
    case = _case(
        [
            ("News", 0, "Афганские законодатели утвердили новый закон о выборах", None),
            ("News", 5, "В субботу Хитли сделали операцию по поводу перелома челюсти", None),
            ("News", 9, "Владелец клуба умирает в 85 лет", None),
            ("News", 12, "Мы решили перенести митап на четверг, начало в 19:30", None),
            ("News", 20, "Митап пройдёт в четверг в 19:30 в коворкинге на Ленина, 21", None),
        ],
        lang="ru",
        kind="channel",
        tz="Europe/Moscow",
    )
    summary = _summary(case)
    assert _claimed(summary, SectionKind.DECISIONS) == ["4"]
    assert _claimed(summary, SectionKind.PLANS) == ["5"]


def test_a_channel_post_a_reader_agrees_to_is_no_decision_of_the_channel() -> None:
    """A post the author writes of herself ("I booked…") that a commenter answers "great,
    agreed" is no decision of the channel's: only one that says "we" is."""
    case = _case(
        [
            ("Notes", 0, "Забронировала билеты на лекцию о городской архитектуре на пятницу", None),
            ("Reader", 7, "Отлично, договорились, я тоже пойду!", 1),
            ("Notes", 30, "Мы решили перенести встречу клуба на четверг, начало в 19:30", None),
            ("Reader", 40, "Хорошо, договорились", 3),
        ],
        lang="ru",
        kind="channel",
        tz="Europe/Moscow",
    )
    summary = _summary(case)
    assert "1" not in _claimed(summary, SectionKind.DECISIONS)


def test_a_channel_authors_own_booking_is_no_decision_though_the_post_says_we() -> None:
    """The "we" must be in the sentence that decides: a post whose author booked
    something for herself and then greets "us" decides nothing for the channel."""
    case = _case(
        [
            (
                "Notes",
                0,
                "Забронировала редкую книгу в библиотеке. Мы с вами давно о ней говорили.",
                None,
            ),
            ("Notes", 30, "Мы решили перенести встречу клуба на четверг, начало в 19:30", None),
        ],
        lang="ru",
        kind="channel",
        tz="Europe/Moscow",
    )
    claimed = _claimed(_summary(case), SectionKind.DECISIONS)
    assert "1" not in claimed
    assert "2" in claimed


@pytest.mark.parametrize(
    ("text", "at_least"),
    [
        ("Flights booked: LHR→HND on 8 March, £812 each", 3),
        ("Встречаемся в субботу в 9:00 у входа на Piastowska", 3),
        ("ok lol", 0),
    ],
)
def test_facts_are_counted_in_any_language(text: str, at_least: int) -> None:
    from toolkit.lang import find
    from toolkit.summarize.extractive.draft.facts import fact_count

    code = "ru" if any("а" <= ch <= "я" for ch in text.lower()) else "en"
    found = fact_count(text, find(code))
    assert found >= at_least
    if at_least == 0:
        assert found == 0


def test_where_people_reply_a_neighbour_is_no_answer() -> None:
    """In a chat that answers by replies, the message after a question answers it only on
    its terms: Katya's release-notes request is no answer to Sasha's CI question."""
    rows = [
        ("Dima", 0, "Может, выкатим миграцию во вторник?", None),
        ("Oleg", 5, "Да, давай во вторник в 21:00", 1),
        ("Sasha", 30, "Кто-нибудь знает, почему CI на ветке release падает на линтере?", None),
        ("Katya", 40, "Заказчик просил добавить в релиз-ноты контакт поддержки", None),
    ]
    messages = [
        {"id": n, "sender": who, "minute": minute, "text": text, "reply_to": reply}
        for n, (who, minute, text, reply) in enumerate(rows, 1)
    ]
    summary = _summary({"lang": "ru", "kind": "chat", "tz": "UTC", "messages": messages})
    answered = [
        item
        for section in summary.sections
        for item in section.items
        if item.messenger_message_ids[:2] == ("3", "4")
    ]
    assert answered == []
    assert "Katya отвечает" not in summary.summary


@pytest.mark.parametrize(
    ("text", "owned"),
    [
        ("Мы решили перенести встречу клуба на четверг.", True),
        # no sentence decides: a post that shares tips and says "we" elsewhere
        ("Хочу поделиться двумя приёмами. Мы рисуем шкалу эмоций на бумаге.", False),
        ("1. Тип личности мы определяем сами. 2. Это гипотеза, не диагноз.", False),
    ],
)
def test_a_channel_decides_only_in_a_sentence_that_decides_and_says_we(
    text: str, owned: bool
) -> None:
    draft = SimpleNamespace(
        ctx=SimpleNamespace(kind=SourceKind.CHANNEL), packs=[pack("ru")], texts=[text]
    )
    assert own(cast(Draft, draft), 0) is owned
