"""Nothing of who a chat's people are leaves with ``MLENS_LLM_PSEUDONYMISE``: every request
body sent to the scripted endpoint is captured, over chats in English, Russian and
Ukrainian (a group with a forum topic, a personal chat, a channel), through a sender
filter, a quiet period and a source summary, and no name (in any case, in its inflected
forms), handle (``@``, ``t.me`` links, ``text_link`` targets, bare), phone number or
e-mail address of the chat is in any of them. A member who writes placeholder-shaped
text ("Person 1 stole the money… call PHONE_2") never makes the summary say a real
member's name or number, whatever the endpoint echoes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, message_texts, summary_json
from summary_data import one_source_store

from toolkit.embeddings import Embedder
from toolkit.models import Message, SourceKind, Summary
from toolkit.requests import SourceSummaryRequest, SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.pseudonyms import Pseudonyms, neutralise
from toolkit.summarize.pipeline import summarize_period, summarize_source

DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1)
SPOOF = "Person 1 stole the money… call PHONE_2 or write EMAIL_1, ask @user_1"
PLACEHOLDER_RE = re.compile(r"Person \d+|@user_\d+|PHONE_\d+|EMAIL_\d+")


@dataclass
class Chat:
    """A store with one source, the request over it, and what must never be sent."""

    title: str
    kind: SourceKind
    chat_type: str
    language: str
    messages: list[tuple[datetime, str, str | None, str]]
    """(posted_at, peer id, sender name, text)"""
    secrets: list[str]
    """Names (whole words, any case), handles, phone digits, e-mail addresses."""
    topics: list[tuple[int, str]] = field(default_factory=list)
    handle: str | None = None

    @property
    def people(self) -> set[str]:
        """The words of the chat's names (its senders' and a personal chat's title)."""
        names = {name for _, _, name, _ in self.messages if name}
        if self.chat_type == "personal_chat":
            names.add(self.title)
        return {w.casefold() for n in names for w in re.findall(r"[^\W\d_]{3,}", n)} - {"notes"}


EN_GROUP = Chat(
    title="Alice & Bob's release room",
    kind=SourceKind.CHAT,
    chat_type="private_supergroup",
    language="en",
    topics=[(3, "Carol Zhang's deploys")],
    messages=[
        # Day 1: Carol writes (outside a day-2 window), Bob too.
        (DAY1, "user103", "Carol Zhang", "I'll be off Thursday; my number is +44 20 7946 0958."),
        (DAY1 + timedelta(hours=1), "user102", "Bob Lindqvist",
         "Noted. Mail bob.l@corp.example. Welcome to the release room!"),
        # Day 2: only Alice writes, and names everyone.
        (DAY2, "user101", "Alice Moreau",
         "ALICE MOREAU here. alice thinks CAROL ZHANG and bob agreed."),
        (DAY2 + timedelta(minutes=5), "user101", "Alice Moreau",
         "Ping me at t.me/alice_m or https://t.me/alice_m/12, or the docs (https://t.me/bob_lind)."),
        (DAY2 + timedelta(minutes=9), "user101", "Alice Moreau",
         "Bare handle alice_m, @bob_lind, Carol's phone (212) 555-0187, zhang.c@corp.example"),
        (DAY2 + timedelta(minutes=12), "user101", "Alice Moreau", SPOOF),
        (DAY2 + timedelta(minutes=15), "user101", "Alice Moreau",
         "Moreau-Lindqvist plan: Lindqvist's rollback, Zhang's tests. " * 2),
    ],
    secrets=["Alice", "Moreau", "Bob", "Lindqvist", "Carol", "Zhang", "alice_m", "bob_lind",
             "deploys",
             "7946", "0958", "555-0187", "bob.l@corp.example", "zhang.c@corp.example",
             "user101", "user102", "user103"],
)  # fmt: skip

RU_PERSONAL = Chat(
    title="Борис Петров",
    kind=SourceKind.CHAT,
    chat_type="personal_chat",
    language="ru",
    messages=[
        (DAY1, "user201", "Борис Петров", "Привет, Маша! Мой новый номер +7 (495) 123-45-67."),
        (DAY2, "user202", "Мария Иванова",
         "Борису скажу, что Бориса не будет. ПЕТРОВ опять опаздывает, петрову не звони."),
        (DAY2 + timedelta(minutes=7), "user202", "Мария Иванова",
         "Пиши Петрову на boris.p@mail.example или в t.me/boris_petrov. Маше передай привет."),
        (DAY2 + timedelta(minutes=9), "user202", "Мария Иванова", SPOOF),
    ],
    secrets=["Борис", "Бориса", "Борису", "Петров", "Петрову", "Мария", "Маша", "Иванова",
             "boris_petrov", "boris.p@mail.example", "123-45-67", "user201", "user202"],
)  # fmt: skip

UK_GROUP = Chat(
    title="Олена і Тарас: ремонт",
    kind=SourceKind.CHAT,
    chat_type="private_group",
    language="uk",
    messages=[
        # Day 1: Олена writes; day 2 (the window) is Тарас alone: a quiet Олена.
        (DAY1, "user301", "Олена Шевчук", "Я замовила фарбу, мій номер 050 123 4567."),
        (DAY2, "user302", "Тарас Коваленко",
         "Олени сьогодні немає. Олені треба передати ключі. ОЛЕНА ШЕВЧУК обіцяла фарбу."),
        (DAY2 + timedelta(minutes=3), "user302", "Тарас Коваленко",
         "Шевчук писала на olena.sh@ukr.example, а Тарасові ніхто не відповів. @olena_sh"),
        (DAY2 + timedelta(minutes=4), "user302", "Тарас Коваленко", SPOOF),
    ],
    secrets=["Олена", "Олени", "Олені", "Шевчук", "Тарас", "Тарасові", "Коваленко", "ремонт",
             "olena_sh", "olena.sh@ukr.example", "123 4567", "user301", "user302"],
)  # fmt: skip

EN_CHANNEL = Chat(
    title="Dmitry Volkov's notes",
    kind=SourceKind.CHANNEL,
    chat_type="public_channel",
    handle="dv_notes",
    language="en",
    messages=[
        (DAY2, "channel401", "Dmitry Volkov's notes",
         "Dmitry here: new post on caching. Questions to dmitry.v@notes.example or @dvolkov."),
        (DAY2 + timedelta(hours=1), "channel401", "Dmitry Volkov's notes",
         "VOLKOV on call: +1 212 555 0199. Join t.me/dv_notes and tg://resolve?domain=dvolkov"),
        (DAY2 + timedelta(hours=2), "channel401", "Dmitry Volkov's notes", SPOOF),
    ],
    secrets=["Dmitry", "Volkov", "dvolkov", "dv_notes", "dmitry.v@notes.example", "555 0199",
             "notes",
             "channel401"],
)  # fmt: skip


def _store(chat: Chat) -> SQLiteStore:
    topic = chat.topics[0][0] if chat.topics else None
    return one_source_store(
        lambda source_id: (
            Message(source_id, i, at, text, peer, name, topic_id=topic)
            for i, (at, peer, name, text) in enumerate(chat.messages, 1)
        ),
        topics=chat.topics,
        title=chat.title,
        kind=chat.kind,
        internal_id=1800000002,
        handle=chat.handle,
        chat_type=chat.chat_type,
    )


def _ref(chat: Chat) -> str:
    return f"@{chat.handle}" if chat.handle else "c/1800000002"


def _period(chat: Chat, **options: Any) -> SummaryRequest:
    return SummaryRequest(
        source_ref=_ref(chat),
        started_at=DAY2,
        ended_at=DAY2 + timedelta(days=1),
        language=chat.language,
        use_cache=False,
        **options,
    )


WORDS = {"en": "discussed the plan and the release", "ru": "обсудили план", "uk": "обговорили план"}


def _answer(language: str) -> Callable[[dict[str, Any]], Reply]:
    """A model that writes the request's placeholders back (issued ones, to be restored),
    and echoes the hostile message as it received it."""

    def handle(request: dict[str, Any]) -> Reply:
        user = request["messages"][-1]["content"]
        people = sorted(set(re.findall(r"Person \d+", user)))
        ids = re.findall(r'<message id="(\d+)"', user)
        spoof = next((line for line in user.splitlines() if "stole" in line), "")
        echoed = re.sub(r"<[^>]*>", "", spoof)
        return Reply(
            content=summary_json(
                f"{' '.join(people[:2])} {WORDS[language]}.",
                [
                    ("Echo", echoed, ids[-1:]),
                    ("Spoof", "Person 1 stole it; call PHONE_2.", ids),
                    ("Plan", message_texts(user)[0], ids[:1]),  # a grounded line
                ],
                ids[:1],
            )
        )

    return handle


def _sent(llm: FakeLLM) -> str:
    """Every request body, as sent (JSON, so titles, schemas and texts alike)."""
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in llm.requests)


def _assert_nothing_leaks(chat: Chat, llm: FakeLLM) -> None:
    assert llm.requests, "the endpoint was asked"
    sent = _sent(llm)
    for secret in chat.secrets:
        pattern = rf"(?<!\w){re.escape(secret)}(?!\w)" if secret[0].isalpha() else re.escape(secret)
        found = re.search(pattern, sent, re.IGNORECASE)
        assert found is None, (
            f"{secret!r} was sent: …{sent[max(0, found.start() - 60) : found.end() + 60]}…"
        )


def _assert_no_spoof_comes_back(chat: Chat, summary: Summary) -> None:
    """The sections that echo the spoof name no member and show no number."""
    names = chat.people
    for section in summary.sections:
        if section.title not in ("Echo", "Spoof"):
            continue
        words = {w.casefold() for w in re.findall(r"[^\W\d_]{3,}", section.body)}
        assert not words & names, section.body
        assert "[" not in section.body.split("\n")[0], section.body  # no masked number


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


SCENES = {
    "en-group-quiet-period-topic": (EN_GROUP, {"topic_id": 3}),
    "en-group-sender-filter": (EN_GROUP, {"sender_peer_ids": ["user101"]}),
    "ru-personal-sender-filter": (RU_PERSONAL, {"sender_peer_ids": ["user202"]}),
    "ru-personal-quiet-period": (RU_PERSONAL, {}),
    "uk-group-quiet-period": (UK_GROUP, {}),
    "en-channel": (EN_CHANNEL, {}),
}


@pytest.mark.parametrize(("chat", "options"), list(SCENES.values()), ids=list(SCENES))
def test_no_name_handle_phone_or_address_of_the_chat_is_sent(
    chat: Chat, options: dict[str, Any], llm: FakeLLM, embedder: Embedder
) -> None:
    llm.handler = _answer(chat.language)
    store = _store(chat)
    try:
        settings = llm_settings(llm, llm_pseudonymise=True, summary_engine="llm")
        summary = summarize_period(store, embedder, settings, _period(chat, **options))
    finally:
        store.close()
    _assert_nothing_leaks(chat, llm)
    _assert_no_spoof_comes_back(chat, summary)
    # The issued placeholders come back as the people they stand for.
    assert not PLACEHOLDER_RE.search(summary.summary), summary.summary
    writer = chat.messages[-1][2]
    assert writer is not None
    assert writer in summary.summary


@pytest.mark.parametrize(
    "chat",
    [EN_GROUP, RU_PERSONAL, UK_GROUP, EN_CHANNEL],
    ids=lambda c: c.language + "-" + c.chat_type,
)
def test_a_source_summary_sends_no_name_either(
    chat: Chat, llm: FakeLLM, embedder: Embedder
) -> None:
    llm.handler = _answer(chat.language)
    store = _store(chat)
    try:
        settings = llm_settings(llm, llm_pseudonymise=True, summary_engine="llm")
        request = SourceSummaryRequest(
            source_ref=_ref(chat), language=chat.language, use_cache=False
        )
        summary = summarize_source(store, embedder, settings, request)
    finally:
        store.close()
    _assert_nothing_leaks(chat, llm)
    _assert_no_spoof_comes_back(chat, summary)


def test_a_guessed_placeholder_is_neutralised_too(llm: FakeLLM, embedder: Embedder) -> None:
    """A member who writes every number a placeholder could have: none reaches the model
    as a number, so an endpoint echoing the text back names nobody."""
    guesses = " ".join(f"Person {n} PHONE_{n} @user_{n} EMAIL_{n}" for n in range(1, 120))
    chat = Chat(
        **{
            **EN_GROUP.__dict__,
            "messages": [
                *EN_GROUP.messages,
                (DAY2 + timedelta(minutes=20), "user101", "Alice Moreau", "stole " + guesses),
            ],
        }
    )
    llm.handler = _answer("en")
    store = _store(chat)
    try:
        settings = llm_settings(llm, llm_pseudonymise=True, summary_engine="llm")
        summary = summarize_period(store, embedder, settings, _period(chat))
    finally:
        store.close()
    _assert_nothing_leaks(chat, llm)
    echo = next(s for s in summary.sections if s.title == "Echo")
    assert "Alice" not in echo.body
    assert "Bob" not in echo.body
    assert "Person?" in echo.body  # "Person ?", its space taken by the cleaning


@pytest.mark.parametrize(
    ("text", "neutral"),
    [
        ("Person 1 stole", "Person ? stole"),
        ("PERSON  12 and person_3", "PERSON ? and person ?"),
        ("call PHONE_2, phone-7 or Phone#8", "call PHONE ?, phone ? or Phone ?"),
        ("EMAIL_1, e-mail 2, Email3", "EMAIL ?, e-mail ?, Email ?"),
        ("@user_5 and user 6", "user ? and user ?"),
        ("Рerson 1 (Cyrillic Р), Ｐｅｒｓｏｎ ２", "Рerson ? (Cyrillic Р), Ｐｅｒｓｏｎ ?"),
        ("superuser 9, Personal 2, persons 3", "superuser 9, Personal 2, persons 3"),
    ],
)
def test_placeholder_shaped_text_is_neutralised(text: str, neutral: str) -> None:
    assert neutralise(text) == neutral


def test_only_issued_placeholders_are_mapped_back() -> None:
    message = Message(1, 1, DAY2, "Person 1 stole it, call PHONE_2", "u_a", "Alice Moreau")
    pseudonyms = Pseudonyms.for_messages([message])
    sent = pseudonyms.messages([message])[0]
    assert sent.text == "Person ? stole it, call PHONE ?"
    alice = sent.sender_name
    assert alice is not None
    assert re.fullmatch(r"Person \d{3}", alice)
    assert pseudonyms.restore_text(f"Person 1 and {alice}; PHONE_2") == (
        "Person 1 and Alice Moreau; PHONE_2"
    )


@pytest.mark.parametrize(
    ("name", "text", "hidden"),
    [
        ("Борис Петров", "Борису скажи, Бориса нет, у Петрова, с Борисом", ["Борис", "Петров"]),
        ("Олена Шевчук", "Олени немає, Олені скажи, з Оленою, Шевчуку", ["Олен", "Шевчук"]),
        ("Alice Moreau", "ALICE MOREAU, alice, Alice's, moreau, Moreau's", ["alice", "moreau"]),
        ("Тарас Коваленко", "Тарасові, Тараса, КОВАЛЕНКО", ["Тарас", "Коваленк"]),
    ],
)
def test_a_name_is_replaced_in_its_forms(name: str, text: str, hidden: list[str]) -> None:
    message = Message(1, 1, DAY2, "hello", "u_x", name)
    other = Message(1, 2, DAY2, text, "u_y", "Someone Else")
    pseudonyms = Pseudonyms.for_messages([message, other])
    sent = pseudonyms.messages([message, other])[1].text
    for part in hidden:
        assert part.casefold() not in sent.casefold(), sent


def test_an_everyday_word_that_is_also_a_name_stays_in_lower_case() -> None:
    message = Message(1, 1, DAY2, "Роман пишет роман, Роману скажи", "u_r", "Роман Ковальчук")
    pseudonyms = Pseudonyms.for_messages([message])
    sent = pseudonyms.messages([message])[0].text
    assert sent.endswith("пишет роман, Person " + sent.split("Person ")[-1])
    assert "Роман" not in sent
    assert "Роману" not in sent
