"""No summary copies a password, login, key, token, card number or IBAN, whatever engine
writes it: each becomes the requested pack's mark (order numbers, years, times, hashes
and file names stay: test_personal.py checks them with the rest of what ``mask`` keeps).
Every fixture here is invented (test keys, test cards, the IBAN registry's examples)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json
from summary_data import chat, extractive_digest, in_period, summary_text

from toolkit.embeddings import Embedder
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.summarize.credentials import (
    random_like,
    secret_answers,
    secret_spans,
)
from toolkit.summarize.personal import marks_for, mask, phone_spans
from toolkit.summarize.pipeline import summarize_period

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BOT_TOKEN = "7012345678:AAF3kd9Lmq2Xz8Pq4Rt6Vw1Yb5Nc7Hj0Ks2"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXVzZXIifQ.c2lnbmF0dXJlLWZvci10ZXN0cy1vbmx5"

SECRETS = [  # (language, text, the secret it holds)
    ("en", "The wifi password is Garden2024! for guests", "Garden2024"),
    ("en", "Zoom passcode: 482913, see you there", "482913"),
    ("en", "login: anna_k and password: Tulip#77", "anna_k"),
    ("en", "login: anna_k and password: Tulip#77", "Tulip#77"),
    ("en", "my key sk-proj-Xy7kQ2mN9pL4vR8sT1wZ3bC6dF0gH5jK, don't share", "sk-proj-"),
    ("en", "old token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 revoked", "ghp_A1b2"),
    ("en", "slack xoxb-2048-4096-Qw7Er8Ty9Ui0 posts here", "xoxb-"),
    ("en", "aws id AKIAIOSFODNN7EXAMPLE in the config", "AKIAIOSFODNN7EXAMPLE"),
    ("en", f"the bot answers with {BOT_TOKEN} now", BOT_TOKEN),
    ("en", f"session {JWT} expires soon", "eyJhbGci"),
    ("en", "secret wJalrXUtnFEMI7K7MDENGbPxRfiCYEXAMPLEKEY9 in the vault", "wJalrXUtn"),
    ("en", "https://zoom.example/j/12345?pwd=Q2xhc3NSb29tMTIzNDU2 join", "Q2xhc3NSb29t"),
    ("en", "Pay to card 5500 0000 0000 0004 by Friday", "5500 0000 0000 0004"),
    ("en", "Card 4111111111111111, exp 12/27", "4111111111111111"),
    ("en", "IBAN GB82 WEST 1234 5698 7654 32 for the deposit", "GB82 WEST"),
    ("ru", "Пароль от вайфая Sosna2024, сеть Dacha", "Sosna2024"),
    ("ru", "логин: ivan.petrov, пароль: Kedr#55", "ivan.petrov"),
    ("ru", "логин: ivan.petrov, пароль: Kedr#55", "Kedr#55"),
    ("ru", "Пин-код 4821, не забудьте", "4821"),
    ("ru", "Карта 4276 3800 1234 5679, Иван П.", "4276 3800 1234 5679"),
    ("ru", "Реквизиты: DE89 3704 0044 0532 0130 00, получатель Анна", "DE89 3704"),
    ("uk", "пароль: Kalyna2024, мережа Hata", "Kalyna2024"),
    ("uk", "Логін — oksana_m, пароль такий самий", "oksana_m"),
    ("uk", "Картка 5375 4141 0000 0008, Оксана", "5375 4141 0000 0008"),
    ("uk", "IBAN UA21 3223 1300 0002 6007 2335 6600 1 UAH", "UA21 3223"),
    ("uk", "сід-фраза: apple2 river7 stone9", "apple2"),
    ("en", 'did you try the password "bluebird" ?', "bluebird"),
    ("en", "Join https://meet.example/j/88812345?p=QwErTyUiOpAsDf now", "QwErTyUiOpAsDf"),
]


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
@pytest.mark.parametrize(("said_in", "text", "secret"), SECRETS)
def test_every_secret_is_masked_in_every_language(
    language: str, said_in: str, text: str, secret: str
) -> None:
    masked = mask(text, marks_for(language))
    assert secret not in masked
    marks = marks_for(language)
    assert {marks.secret, marks.card, marks.iban} & set(re.findall(r"\[[^\]]+\]", masked))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("The wifi password is Garden2024! for guests", "The wifi password is "),
        ("Zoom passcode: 482913, see you there", ", see you there"),
        ("Card 4111111111111111, exp 12/27", ", exp 12/27"),
        ("IBAN UA21 3223 1300 0002 6007 2335 6600 1 UAH", " UAH"),
    ],
)
def test_only_the_secret_goes_the_words_around_it_stay(text: str, kept: str) -> None:
    assert kept in mask(text, marks_for("en"))


@pytest.mark.parametrize(
    "text",
    [
        "call +44 7700 900123 today",
        "+447700900123",
        "WhatsApp +65 9123 4567",
        "мобільний 9123 4567",
    ],
)
def test_phone_numbers_in_international_and_more_national_formats(text: str) -> None:
    assert phone_spans(text)
    assert not re.search(r"\d{4}", mask(text, marks_for("en")))


@pytest.mark.parametrize("text", ["at 10:30", "in 2026", "on 12.10.2026 at 10:30"])
def test_a_time_a_year_or_a_date_is_no_phone(text: str) -> None:
    assert phone_spans(text) == []


@pytest.mark.parametrize(("_", "text", "__"), SECRETS)
def test_masking_twice_changes_nothing(_: str, text: str, __: str) -> None:
    for language in ("en", "ru", "uk"):
        once = mask(text, marks_for(language))
        assert mask(once, marks_for(language)) == once


@pytest.mark.parametrize(
    ("asked", "answer", "secret"),
    [
        ("What is your login on the forge?", "anna-k", True),
        ("скажите логин на гх", "Kvitka-na-Vikni", True),
        ("Який пароль від вайфаю?", "Kalyna2024", True),
        ("What is your login on the forge?", "I will send it to you later tonight", False),
        ("Who is coming on Friday?", "anna-k", False),
        ("The password is Tulip#77, the login anna", "thanks", False),  # no request
    ],
)
def test_a_short_answer_to_a_request_for_a_secret_is_the_secret(
    asked: str, answer: str, secret: bool
) -> None:
    said = [
        Message(1, 1, T0, asked, sender_peer_id="u1", sender_name="Bob"),
        Message(1, 2, T0 + timedelta(minutes=1), answer, sender_peer_id="u2", sender_name="Ann"),
    ]
    assert secret_answers(said) == ({1} if secret else set())
    named = [replace(m, sender_peer_id=None) for m in said]  # an HTML export: names only
    assert secret_answers(named) == ({1} if secret else set())


def test_the_extractive_engine_quotes_an_answered_login_as_its_mask(embedder: Embedder) -> None:
    rows = [
        ("Bob", "The build still fails with 404 on the private repository, can you check?"),
        ("Ann", "I am logged in and still get 404 on the private repository page."),
        ("Bob", "Tell me your login on the forge and I will add you to the team."),
        ("Ann", "Kvitka-na-Vikni"),
        ("Bob", "Added you to the team, try the private repository page again please."),
    ]
    end = T0 + timedelta(hours=1)
    summary = extractive_digest(embedder, _chat(rows), "en", "Dev", started_at=T0, ended_at=end)
    assert "Kvitka" not in summary_text(summary)


def test_random_keys_are_told_from_words_and_ids() -> None:
    assert random_like("wJalrXUtnFEMI7K7MDENGbPxRfiCYEXAMPLEKEY9")
    assert not random_like("ThisIsAVeryLongCamelCaseName")
    assert not random_like("9f86d081884c7d659a2feaa0c55ad015")


CHATS = {
    "en": [
        ("Anna", "What is the wifi password at the cabin? I need it for the laptop."),
        ("Bob", "The wifi password is Garden2024! and the router is in the hall."),
        ("Anna", "Thanks! And the card for the deposit? Pay to card 5500 0000 0000 0004."),
        ("Carl", f"I set up the bot, its token is {BOT_TOKEN} for the group."),
    ],
    "ru": [
        ("Анна", "Какой пароль от вайфая на даче? Нужно подключить ноутбук."),
        ("Борис", "Пароль от вайфая Sosna2024, роутер стоит в прихожей."),
        ("Анна", "Спасибо! Залог переведу на карту 4276 3800 1234 5679 сегодня."),
        ("Вера", "Логин: vera_k, пароль: Kedr#55 от личного кабинета дачи."),
    ],
    "uk": [
        ("Оксана", "Який пароль від вайфаю на дачі? Треба підключити ноутбук."),
        ("Тарас", "пароль: Kalyna2024, роутер стоїть у коридорі біля дверей."),
        ("Оксана", "Дякую! Завдаток переведу на картку 5375 4141 0000 0008 сьогодні."),
        ("Марія", "Рахунок для оплати: UA21 3223 1300 0002 6007 2335 6600 1, отримувач Марія."),
    ],
}
LEAKS = re.compile(
    r"Garden2024|Sosna2024|Kalyna2024|Kedr#55|vera_k|AAF3kd9|"
    r"0000 0004|1234 5679|0000 0008|2335 6600"
)


def _chat(rows: list[tuple[str, str]]) -> list[Message]:
    return chat(rows, start=T0, minutes=3, peer=lambda _, who: f"user{hash(who) % 97}")


@pytest.mark.parametrize("chat_language", ["en", "ru", "uk"])
@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_the_extractive_engine_quotes_no_secret_beyond_its_mask(
    embedder: Embedder, chat_language: str, language: str
) -> None:
    messages = _chat(CHATS[chat_language])
    end = T0 + timedelta(hours=1)
    summary = extractive_digest(embedder, messages, language, "Cabin", started_at=T0, ended_at=end)
    text = summary_text(summary)
    assert not LEAKS.search(text), text
    marks = marks_for(language)
    assert marks.secret in text or marks.card in text or marks.iban in text, text


@pytest.fixture
def cabin() -> Iterator[SQLiteStore]:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Cabin", kind=SourceKind.CHAT, handle="cabin")
    rows = CHATS["en"] + CHATS["ru"] + CHATS["uk"]
    store.upsert_messages([replace(m, source_id=source.id) for m in _chat(rows)])
    yield store
    store.close()


ECHOED = (
    "Bob says the wifi password is Garden2024! and Anna pays the deposit to card "
    "5500 0000 0000 0004."
)


def test_the_llm_engine_neither_sends_nor_writes_a_secret(
    cabin: SQLiteStore, embedder: Embedder
) -> None:
    with FakeLLM() as llm:
        llm.handler = lambda _: Reply(content=summary_json(ECHOED, [("Cabin", ECHOED, ["2", "3"])]))
        settings = llm_settings(llm, summary_engine="llm")
        period = in_period("@cabin", T0, T0 + timedelta(hours=1), "en", use_cache=False)
        summary = summarize_period(cabin, embedder, settings, period)
        sent = "\n".join(str(r["messages"]) for r in llm.requests)
    assert summary.engine == "llm"
    assert not LEAKS.search(summary_text(summary)), summary_text(summary)
    assert not LEAKS.search(sent)  # the model never read one, so it cannot copy one
    assert marks_for("en").card in summary.summary


def test_the_hybrid_engine_writes_no_secret(cabin: SQLiteStore, embedder: Embedder) -> None:
    # A model that puts a secret back into every line it rewrites.
    def handler(request: dict[str, object]) -> Reply:
        lines = re.findall(r"^(\d+): ", str(request["messages"][-1]["content"]), re.M)  # type: ignore[index]
        answer = {n: f"Bob said the password is Garden2024! {n}" for n in lines}
        return Reply(content=json.dumps(answer))

    with FakeLLM() as llm:
        llm.handler = handler
        settings = llm_settings(llm, summary_engine="hybrid", llm_hybrid_max_items=50)
        period = in_period("@cabin", T0, T0 + timedelta(hours=1), "en", use_cache=False)
        summary = summarize_period(cabin, embedder, settings, period)
    assert summary.engine.startswith("hybrid")
    assert not LEAKS.search(summary_text(summary)), summary_text(summary)


@pytest.mark.parametrize(
    "text",
    [
        "Forgot my password again (see https://help.example.org/reset?step=2 for how)",
        "Ключ к разгадке тут (https://m.facebook.com/story.php?story_fbid=341328705204&id=1000)",
        "Пароль від вайфаю — на дошці, інструкція: https://wiki.example.net/wifi",
    ],
)
def test_a_link_after_a_secret_cue_is_no_secret(text: str) -> None:
    """The colon of "https://" after a cue word is no "password: value" separator: the
    link stays whole (it was shown as "https:[password or key]")."""
    assert secret_spans(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Ya, let's pin our calls (https://t.me/c/1234567/51991)",
        "Login: https://portal.example.org/sign-in",
    ],
)
def test_a_link_after_a_secret_word_is_no_secret(text: str) -> None:
    # "pin" names a PIN and "login" a login, but a link after either is a page, never
    # the value: a digest's citation must survive whole.
    assert secret_spans(text) == []


def test_a_password_before_another_cues_colon_is_masked_too() -> None:
    # The colon belongs to "login", not to "password": both values are secrets.
    text = "password is Xk9#pq2 and login: ivan_k"
    assert [text[a:b] for a, b in secret_spans(text)] == ["Xk9#pq2", "ivan_k"]
