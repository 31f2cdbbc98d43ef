"""No summary copies an e-mail address or a phone number, whatever engine writes it: the
extractive engine's quotes and the LLM's answer carry the requested pack's mark instead;
dates, times, prices, versions, order numbers, hashes, file names and the words of a
request for a secret stay as they are."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json
from summary_data import (
    NO_PACK,
    about_source,
    chat,
    extractive_digest,
    in_period,
    summary_text,
)

from toolkit.embeddings import Embedder
from toolkit.models import Message, Section, SectionItem, SourceKind, Summary
from toolkit.store import SQLiteStore
from toolkit.summarize.credentials import card_spans, iban_spans, secret_spans
from toolkit.summarize.personal import (
    Marks,
    head_to_mask,
    marks_for,
    mask,
    mask_summary,
    phone_spans,
)
from toolkit.summarize.pipeline import summarize_period, summarize_source

MARKS = Marks(email="[e-mail]", phone="[phone]")
T0 = datetime(2026, 10, 12, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Call me: +48 123 456 789 after six", "Call me: [phone] after six"),
        ("Звоните 8 (916) 123-45-67, спросите Ивана", "Звоните [phone], спросите Ивана"),
        ("Мій номер 050 123 4567, пишіть", "Мій номер [phone], пишіть"),
        ("+380501234567 or (212) 555-0187", "[phone] or [phone]"),
        ("Write to anna.k+trip@example.co.uk!", "Write to [e-mail]!"),
        ("Пишите ivan_petrov@mail.ru или 8-916-123-45-67", "Пишите [e-mail] или [phone]"),
        ("Адреса: оксана@пошта.укр", "Адреса: [e-mail]"),
    ],
)
def test_phones_and_addresses_are_masked_in_every_language(text: str, masked: str) -> None:
    assert mask(text, MARKS) == masked


@pytest.mark.parametrize(
    "text",
    [
        "We meet on 2026-10-12 at 13:40 in room 4.",
        "Release 3.2.1 ships Friday; v2.14.1 is older.",
        "The tickets are €120 each, $1,250,000 in all.",
        "Your order 123456 is booked, ISBN 978-3-16-148410-0.",
        "+1 at 9, see you",
        "12.10.2026 с 10:30-11:45, 1 000 000 руб.",
        "Link: https://t.me/c/1234567890/123 and @alice_k",
        "Бронь 4411223, рейс 7 в 14:05",
        "Order 4111 1111 1111 1112 shipped",  # fails the Luhn check
        "Order 1234567812345670 is ours",  # passes it, but no card starts with 1
        "The years 2024 and 2025, at 10:30 and 13:40",
        "I forgot my password yesterday, reset it please",
        "Login at 10:30 tomorrow",
        "пароль не подходит, логин тоже",
        "пароль або ключ",  # a mark's own words
        "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "Screenshot_20230101-123456_Chrome.jpg attached",
        "Release 2.4.10.3345 and the docs at https://docs.example.org/a/b?page=2",
        "DE00 1234 is no account",
        "Promo code SPRING is for the shop",
    ],
)
def test_what_is_neither_personal_nor_secret_stays(text: str) -> None:
    assert phone_spans(text) == []
    assert secret_spans(text) == []
    assert card_spans(text) == []
    assert iban_spans(text) == []
    assert mask(text, marks_for("en")) == text


def test_the_marks_are_the_packs_words() -> None:
    en = ("[e-mail]", "[phone]", "[password or key]", "[card number]", "[bank account]")
    ru = ("[адрес почты]", "[телефон]", "[пароль или ключ]", "[номер карты]", "[банковский счёт]")
    uk = ("[адреса пошти]", "[телефон]", "[пароль або ключ]", "[номер картки]")
    assert marks_for("en") == Marks(*en)
    assert marks_for("ru") == Marks(*ru)
    assert marks_for("uk") == Marks(*uk, "[банківський рахунок]")
    assert marks_for(NO_PACK) == Marks()  # no pack: a mark with no words, "[…]"
    assert Marks().secret == "[…]"


def test_a_whole_summary_is_masked_titles_bodies_and_items() -> None:
    summary = Summary(
        "@x",
        "Ann: +48 123 456 789.",
        [Section("Call 050 123 4567", "Mail a@b.io", items=(SectionItem("a@b.io", ("1",)),))],
        ["1"],
    )
    masked = mask_summary(summary, MARKS)
    assert masked.summary == "Ann: [phone]."
    assert masked.sections[0].title == "Call [phone]"
    assert masked.sections[0].body == "Mail [e-mail]"
    assert masked.sections[0].items == (SectionItem("[e-mail]", ("1",)),)


_CONTACTS = {
    "en": [
        ("Anna", "Does anyone have the caterer's contact for the Saturday party?"),
        ("Bob", "Sure: call Maria at +48 123 456 789 or write to maria.k@catering.example"),
        ("Anna", "Thanks! I will call her tomorrow and book the buffet for 40 people."),
        ("Carl", "My number changed, it is now (212) 555-0187, the old one is gone."),
    ],
    "ru": [
        ("Анна", "У кого есть телефон сантехника? У нас течёт кран на кухне."),
        ("Борис", "Звоните Ивану: 8 (916) 123-45-67, или пишите ivan.petrov@mail.ru"),
        ("Анна", "Спасибо, договорилась с ним на завтра на десять утра."),
        ("Вера", "Мой новый номер +7 916 765-43-21, старый больше не работает."),
    ],
    "uk": [
        ("Оксана", "Хто знає номер майстра, який ремонтує пральні машини?"),
        ("Тарас", "Дзвоніть Петру: 050 123 4567 або пишіть petro.remont@ukr.net"),
        ("Оксана", "Дякую, домовилась на п'ятницю, він прийде о десятій."),
        ("Марія", "Мій новий номер +380 67 765 4321, старий більше не працює."),
    ],
}
_SECRETS = re.compile(r"\d{3}[ -]?\d{2}[ -]?\d{2}|\d{3} \d{4}|@[\w.-]+\.(?:example|ru|net)")


def _chat(rows: list[tuple[str, str]]) -> list[Message]:
    return chat(rows, start=T0, minutes=2, peer=lambda i, _: f"user{i % 3}")


def _all(summary: Summary) -> str:
    return re.sub(r"https://\S+", "", summary_text(summary))


@pytest.mark.parametrize("chat_language", ["en", "ru", "uk"])
@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_the_extractive_engine_never_quotes_a_phone_or_an_address(
    embedder: Embedder, chat_language: str, language: str
) -> None:
    summary = extractive_digest(
        embedder,
        _chat(_CONTACTS[chat_language]),
        language,
        "Neighbours",
        started_at=T0,
        ended_at=T0 + timedelta(hours=1),
        link=lambda i: f"https://t.me/n/{i}",
    )
    text = _all(summary)
    assert not _SECRETS.search(text), text
    marks = marks_for(language)
    assert marks.phone in text, text  # the contact messages are what the chat is about


@pytest.fixture
def neighbours() -> Iterator[SQLiteStore]:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Neighbours", kind=SourceKind.CHAT, handle="neighbours")
    store.upsert_messages([replace(m, source_id=source.id) for m in _chat(_CONTACTS["ru"])])
    yield store
    store.close()


# Asked in the chat's language: an answer in Russian to a German request is now dropped for
# its language before masking matters (tests/toolkit/summarize/test_llm_across.py).
@pytest.mark.parametrize("language", ["ru"])
def test_the_llm_engines_answer_is_masked_before_it_leaves(
    neighbours: SQLiteStore, embedder: Embedder, language: str
) -> None:
    # Иван's number is in message 2 and Вера's in 4: the answer cites both (a line naming
    # what its cited messages do not say is dropped as ungrounded).
    echoed = "Звоните Ивану: 8 (916) 123-45-67, ivan.petrov@mail.ru; Вера: +7 916 765-43-21."
    with FakeLLM() as llm:
        llm.handler = lambda _: Reply(
            content=summary_json(echoed, [("Сантехник", echoed, ["2", "4"])], ["2", "4"])
        )
        settings = llm_settings(llm, summary_engine="llm")
        period = in_period("@neighbours", T0, T0 + timedelta(hours=1), language, use_cache=False)
        summary = summarize_period(neighbours, embedder, settings, period)
        whole = summarize_source(
            neighbours, embedder, settings, about_source("@neighbours", language)
        )
    marks = marks_for(language)
    for answer in (summary, whole):
        assert answer.engine == "llm"
        text = _all(answer)
        assert not _SECRETS.search(text), text
        assert answer.summary.startswith(
            f"Звоните Ивану: {marks.phone}, {marks.email}; Вера: {marks.phone}"
        )
        assert answer.sections[0].body.startswith(f"— Звоните Ивану: {marks.phone}")


@pytest.mark.parametrize(
    ("text", "reach", "head"),
    [
        ("call me at +1 202 555 0147 now", 100, "call me at +1 202 555 0147 now"),
        ("call me at +1 202 555 0147 now", 20, "call me at"),  # no piece of the number
        ("call me at +1 202 555 0147 now", 26, "call me at"),  # a number that ends it goes whole
        ("mail bob@mail.example now", 12, "mail"),  # no piece of the address
        ("see https://example.org/a b", 15, "see"),  # no piece of the link
        ("     tail", 3, ""),
    ],
)
def test_the_head_to_mask_splits_no_number_address_or_link(
    text: str, reach: int, head: str
) -> None:
    assert head_to_mask(text, reach) == head
