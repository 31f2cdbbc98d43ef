"""The digest of what happened, end to end on small real-looking chats: threads,
decisions with who agreed, plans, links, open questions; cited = important ids; the
requested language across languages (en, ru, uk); nothing claimed that no message makes."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from summary_data import TEAM_CHAT, extractive_digest, team_messages

from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.lang.script import letters
from toolkit.models import Message, SourceKind, Summary

# How sections tell acts, with the acts the old rules name (the shipped scorers decide
# less: ``test_act_scoring`` and ``python -m toolkit.evaluate.acts.loso`` measure them).
pytestmark = pytest.mark.usefixtures("rule_scorers")

_QUOTED = re.compile(r"“[^”]*”|«[^»]*»")


def _summarize(
    embedder: Embedder,
    messages: Sequence[Message],
    language: str,
    *,
    link: Callable[[int], str] = lambda i: f"https://t.me/team/{i}",
    kind: SourceKind = SourceKind.CHAT,
) -> Summary:
    return extractive_digest(embedder, messages, language, "Team", kind=kind, link=link)


def _all_text(summary: Summary) -> str:
    return "\n".join([summary.summary, *(s.title + "\n" + s.body for s in summary.sections)])


def _unnamed(text: str, messages: Sequence[Message]) -> str:
    """``text`` without its quotations, links and the senders' names (a name is written as
    the chat shows it, in its own script: not the engine's words)."""
    text = _QUOTED.sub(" ", re.sub(r"https?://\S+", " ", text))
    for name in {m.sender_name for m in messages if m.sender_name}:
        text = text.replace(name, " ")
    return text


def _ids(text: str) -> set[str]:
    return set(re.findall(r"https://t\.me/team/(\d+)", text))


def _chat(rows: Sequence[tuple[str, str]], minutes: int = 3) -> list[Message]:
    return [
        Message(
            source_id=1,
            messenger_message_id=i,
            posted_at=datetime(2025, 3, 3, 10, tzinfo=UTC) + timedelta(minutes=minutes * i),
            text=text,
            sender_peer_id=f"user_{who}",
            sender_name=who,
        )
        for i, (who, text) in enumerate(rows, 1)
    ]


@pytest.mark.slow
def test_a_team_chat_reads_as_what_happened(embedder: Embedder) -> None:
    summary = _summarize(embedder, team_messages(1), "en")
    titles = [s.title for s in summary.sections]
    assert "Decisions and agreements" in titles
    decisions = next(s for s in summary.sections if s.title == "Decisions and agreements")
    assert "we ship release 2.4 to production on Thursday" in decisions.body
    assert "Bob agrees" in decisions.body  # "Agreed on Thursday." replies to it
    plans = next(s for s in summary.sections if s.title == "Plans and dates")
    assert "backfill job Wednesday night" in plans.body
    assert "Alice plans for 8 May, 20:00:" in plans.body  # Wednesday after Monday 6 May
    links = next(s for s in summary.sections if s.title == "Shared links")
    assert "“docs.example.com”" in links.body
    # Every question was answered: none is called open.
    assert "Open questions" not in titles
    # The digest names the main threads and the decision.
    assert "conversations" in summary.summary
    assert "reports a decision" in summary.summary
    # Threads: the lunch plan is not the release thread.
    threads = [s for s in summary.sections if s.title not in pack("en").templates.values()]
    lunch = [s for s in threads if "ramen" in s.body.lower()]
    assert lunch
    assert all("release branch" not in s.body for s in lunch)
    # Each statement carries its links, and the ids are exactly the cited ones.
    assert _ids(_all_text(summary)) == set(summary.important_messenger_message_ids)
    assert len(summary.important_messenger_message_ids) == len(
        set(summary.important_messenger_message_ids)
    )


@pytest.mark.parametrize("language", ["ru", "uk"])
@pytest.mark.slow
def test_across_languages_the_engine_writes_the_requested_one(
    embedder: Embedder, language: str
) -> None:
    messages = team_messages(1)
    summary = _summarize(embedder, messages, language)
    book = pack(language)
    text = _unnamed(_all_text(summary), messages)
    own, total = letters(text, book.script)
    assert own / total >= 0.95, text
    assert "Alice" in summary.summary  # as the chat writes it, not «Алисе»
    for section in summary.sections:
        # An acronym ("CI") reads the same in any language; every other word is the pack's.
        title = re.sub(r"\b[A-Z0-9]{2,}\b", " ", _unnamed(section.title, messages))
        own, total = letters(title, book.script)
        assert own == total, section.title
    assert book.say("sec_decisions") in [s.title for s in summary.sections]
    plans = next(s for s in summary.sections if s.title == book.say("sec_plans"))
    # The date itself, in the language; in the period's year, so without it.
    assert book.day(datetime(2024, 5, 8), year=False) in plans.body
    assert _ids(_all_text(summary)) == set(summary.important_messenger_message_ids)
    # Quotes of English messages stay short (a reader of another language skims them).
    from toolkit.summarize.extractive.compose.cite import FOREIGN_QUOTE_CHARS

    quotes = re.findall(r"«[^»]*»", summary.summary)
    assert all(len(q) <= FOREIGN_QUOTE_CHARS + 4 for q in quotes), quotes


@pytest.mark.slow
def test_a_chat_without_links_gets_no_link_and_no_empty_brackets(embedder: Embedder) -> None:
    summary = _summarize(embedder, team_messages(1), "en", link=lambda _: "")
    text = _all_text(summary)
    assert "http" not in text
    assert "()" not in text
    assert summary.important_messenger_message_ids  # still the messages it rests on


def test_nothing_is_called_a_decision_or_an_answer_that_no_message_makes(
    embedder: Embedder,
) -> None:
    rows = [
        ("Ann", "Has anyone read the new book by Sally Rooney yet?"),
        ("Ann", "I wonder whether the ending is as sad as people say it is."),
        ("Bob", "The weather in Lisbon was lovely last week, sunny every single day."),
        ("Cid", "My cat learned to open the kitchen door, which is a bit scary."),
        ("Bob", "Lisbon also had great pastries, I ate far too many of them."),
    ]
    summary = _summarize(embedder, _chat(rows, minutes=90), "en")
    text = _all_text(summary)
    assert "decision" not in text.lower()
    assert "agrees" not in text
    assert "answers" not in text
    open_questions = next(s for s in summary.sections if s.title == "Open questions")
    assert "new book by Sally Rooney" in open_questions.body


def test_a_ukrainian_chat_in_ukrainian_and_english(embedder: Embedder) -> None:
    rows = [
        ("Оксана", "Привіт! Коли зустрічаємося щодо звіту за квартал?"),
        ("Тарас", "Давайте в п'ятницю о 10:00 в офісі на Хрещатику."),
        ("Оксана", "Домовились, я підготую слайди до четверга."),
        ("Тарас", "Я зроблю таблицю з витратами, там вийшло 12 500 гривень."),
        ("Марія", "Хто замовить переговорну кімнату на п'ятницю?"),
    ]
    messages = _chat(rows, minutes=1)
    summary = _summarize(embedder, messages, "uk")
    text = _all_text(summary)
    assert "Тарас пропонує" in text
    assert "Оксана погоджується" in text
    assert _ids(text) == set(summary.important_messenger_message_ids)
    english = _summarize(embedder, messages, "en")
    bare = _unnamed(_all_text(english), messages)
    own, total = letters(bare, "latin")
    assert own / total >= 0.95, bare
    assert "Тарас proposes" in _all_text(english)  # names as the chat shows them
    assert "Оксана agrees" in _all_text(english)


@pytest.mark.slow
def test_the_team_chats_opening_counts_conversations_not_speakers(embedder: Embedder) -> None:
    summary = _summarize(embedder, team_messages(1), "en")
    first = summary.summary.split(". ")[0]
    assert first.startswith("The chat had ")
    assert not any(author.capitalize() in first for author, _, _ in TEAM_CHAT)


RETRO = [
    ("Ольга", "Коллеги, когда проводим ретро по релизу 3.1?"),
    ("Игорь", "Предлагаю в четверг в 15:00, переговорка на пятом этаже."),
    ("Ольга", "Давай, договорились."),
    ("Марина", "Кто-нибудь знает, почему упал ночной билд?"),
    ("Павел", "Упал из-за миграции базы, я починю сегодня вечером."),
    ("Игорь", "Решение: релиз 3.2 выпускаем 15 ноября, без новой фичи оплаты."),
    ("Ольга", "Согласна, фичу оплаты переносим в 3.3."),
    ("Марина", "А бюджет на новые сервера уже согласовали?"),
]


def _retro() -> list[Message]:
    replies = {2: 1, 3: 2, 5: 4, 7: 6}
    return [
        Message(
            source_id=1,
            messenger_message_id=i,
            posted_at=datetime(2025, 11, 3, 10, tzinfo=UTC) + timedelta(minutes=6 * i),
            text=text,
            sender_peer_id=f"user_{who}",
            sender_name=who,
            reply_to=replies.get(i),
        )
        for i, (who, text) in enumerate(RETRO, 1)
    ]


@pytest.mark.parametrize(
    ("language", "decided", "agreed", "for_date", "asked"),
    [
        ("ru", "Игорь сообщает о решении", "Ольга соглашается", "(на 6 ноября, 15:00)",
         "вопрос, который задаёт Марина"),
        ("en", "Игорь reports a decision", "Ольга agrees", "(for 6 November, 15:00)",
         "Марина's question"),
        ("uk", "Игорь повідомляє про рішення", "Ольга погоджується", "(на 6 листопада, 15:00)",
         "питання, яке ставить Марина"),
    ],
)  # fmt: skip
def test_a_russian_chat_tells_its_decisions_dates_and_open_question(
    embedder: Embedder, language: str, decided: str, agreed: str, for_date: str, asked: str
) -> None:
    summary = _summarize(embedder, _retro(), language)
    assert decided in summary.summary
    assert agreed in summary.summary
    assert asked in summary.summary
    book = pack(language)
    decisions = next(s for s in summary.sections if s.title == book.say("sec_decisions"))
    assert for_date in decisions.body  # "в четверг в 15:00" from Monday 3 November
    assert agreed in decisions.body
    assert _ids(_all_text(summary)) == set(summary.important_messenger_message_ids)
