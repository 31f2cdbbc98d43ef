"""``MLENS_LLM_PSEUDONYMISE``: names, @handles, phone numbers and e-mail addresses leave as
stable placeholders and come back in the answer (``toolkit.summarize.llm.pseudonyms``),
through the pipeline against the scripted endpoint."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, llm_settings, summary_json

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Message, SourceKind
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.summarize.llm.answer import LLMSection, LLMSummary
from toolkit.summarize.llm.pseudonyms import Pseudonyms, phone_spans
from toolkit.summarize.pipeline import summarize_period

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CHAT = [
    (
        "u_alice",
        "Alice Moreau",
        "Hi all, Bob: the release is Thursday. Mail me at alice.m@corp.example",
    ),
    ("u_bob", "Bob Lindqvist", "Thanks Alice. Call me on +44 20 7946 0958 if CI breaks."),
    ("u_carol", "Carol Zhang", "Ping @bob_lind or @carol_ops; my phone is (212) 555-0187."),
    ("u_alice", "Alice Moreau", "Alice here again: ask Carol Zhang, or write to ops@corp.example"),
    ("u_dave", None, "Dave (no name on file) says: 8 (916) 123-45-67 is the on-call line."),
]
SECRETS = [
    "Alice",
    "Moreau",
    "Bob",
    "Lindqvist",
    "Carol",
    "Zhang",
    "u_dave",
    "alice.m@corp.example",
    "ops@corp.example",
    "7946",
    "555-0187",
    "123-45-67",
    "@bob_lind",
    "@carol_ops",
]


def _messages(source_id: int, filler: str = "") -> list[Message]:
    return [
        Message(
            source_id=source_id,
            messenger_message_id=i,
            posted_at=START + timedelta(minutes=i),
            text=text + filler,
            sender_peer_id=peer,
            sender_name=name,
        )
        for i, (peer, name, text) in enumerate(CHAT, 1)
    ]


def _store(filler: str = "") -> SQLiteStore:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(
        title="Alice Moreau's release room", kind=SourceKind.CHAT, internal_id=1800000001
    )
    store.upsert_messages(_messages(source.id, filler))
    return store


@pytest.fixture
def chat() -> Iterator[SQLiteStore]:
    store = _store()
    yield store
    store.close()


@pytest.fixture
def long_chat() -> Iterator[SQLiteStore]:
    store = _store(" and so on" * 100)  # one message fills a 256-token chunk
    yield store
    store.close()


def _request() -> SummaryRequest:
    return SummaryRequest(
        source_ref="c/1800000001",
        started_at=START,
        ended_at=START + timedelta(days=1),
        language="en",
        use_cache=False,
    )


def _sent(llm: FakeLLM) -> str:
    return "\n".join(m["content"] for r in llm.requests for m in r["messages"])


def _placeholder_answer(request: dict[str, Any]) -> Reply:
    """An answer in the placeholders the request carried (as a model writes them)."""
    user = request["messages"][-1]["content"]
    people = sorted(set(re.findall(r"Person \d+", user)))
    handles = sorted(set(re.findall(r"@user_\d+", user)))
    phones = sorted(set(re.findall(r"PHONE_\d+", user)))
    emails = sorted(set(re.findall(r"EMAIL_\d+", user)))
    body = (
        f"{' and '.join(people)} agreed; call {', '.join(phones)}; ping {' '.join(handles)}; "
        f"mail {' '.join(emails)}."
    )
    return Reply(
        content=summary_json(
            f"{people[0]} leads the release.",
            # The line cites every message it names someone of (issue 29: grounded).
            [(f"{people[1]}'s part", body, re.findall(r'<message id="(\d+)"', user))],
            ["1"],
        )
    )


def test_what_is_sent_holds_no_name_handle_phone_or_address_and_the_answer_has_names_back(
    chat: SQLiteStore, embedder: Embedder
) -> None:
    with FakeLLM(handler=_placeholder_answer) as llm:
        settings = llm_settings(llm, llm_pseudonymise=True, summary_engine="llm")
        summary = summarize_period(chat, embedder, settings, _request())
    sent = _sent(llm)
    for secret in SECRETS:
        assert secret not in sent
    for shape in (r"Person \d{3}", r"@user_\d{3}", r"PHONE_\d{3}", r"EMAIL_\d{3}"):
        assert re.search(shape, sent), shape
    assert summary.summary == "Alice Moreau leads the release."
    section = summary.sections[0]
    assert section.title == "Bob Lindqvist's part"
    body = section.body
    for back in ("Alice Moreau", "Bob Lindqvist", "Carol Zhang", "u_dave", "@bob_lind"):
        assert back in body
    # Phone numbers and addresses mapped back are masked like any the model writes: no
    # summary copies them (the message link leads to them).
    for phone in ("+44 20 7946 0958", "(212) 555-0187", "8 (916) 123-45-67"):
        assert phone not in body
    assert "call [phone], [phone], [phone]" in body
    assert "mail [e-mail] [e-mail]." in body
    assert "corp.example" not in body
    assert "EMAIL_" not in body
    assert "Person " not in body


def test_placeholders_are_stable_across_chunks_and_the_merge(
    long_chat: SQLiteStore, embedder: Embedder
) -> None:
    # One message a chunk: five partials, then merges; Alice has one placeholder in each.
    def answer(request: dict[str, Any]) -> Reply:
        user = request["messages"][-1]["content"]
        people = sorted(set(re.findall(r"Person \d+", user)))
        if "<partials>" in user:
            return Reply(content=summary_json(f"{people[0]} and {people[1]} ship Thursday."))
        return Reply(content=summary_json(f"{' and '.join(people)} spoke.", [], []))

    with FakeLLM(handler=answer) as llm:
        settings = llm_settings(
            llm,
            llm_pseudonymise=True,
            summary_engine="llm",
            llm_chunk_tokens=256,
            llm_max_prompt_tokens=100_000,
        )
        summary = summarize_period(long_chat, embedder, settings, _request())
    assert len(llm.requests) > 2  # chunked, then merged
    sent = _sent(llm)
    for secret in SECRETS:
        assert secret not in sent
    authors = [
        re.findall(r'<message id="(\d+)" author="([^"]+)"', r["messages"][-1]["content"])
        for r in llm.requests
    ]
    by_id = {i: a for chunk in authors for i, a in chunk}
    assert by_id["1"] == by_id["4"]  # Alice, in two different chunks
    assert len({by_id[i] for i in ("1", "2", "3", "5")}) == 4
    assert summary.summary == "Alice Moreau and Bob Lindqvist ship Thursday."


def test_off_by_default_names_are_sent_as_they_are(chat: SQLiteStore, embedder: Embedder) -> None:
    with FakeLLM([Reply(content=summary_json("Fine.", [], ["1"]))]) as llm:
        settings = llm_settings(llm, summary_engine="llm")
        assert settings.llm.pseudonymise is False
        summarize_period(chat, embedder, settings, _request())
    assert 'author="Alice Moreau"' in _sent(llm)


def test_the_cache_keeps_pseudonymised_and_plain_answers_apart(
    chat: SQLiteStore, embedder: Embedder
) -> None:
    from toolkit.summarize.llm.engine import LLMSummaryEngine

    plain = Settings(_env_file=None, llm={"base_url": "http://127.0.0.1:9/v1"})  # type: ignore[call-arg]
    hidden = plain.replace(llm={"pseudonymise": True})
    engine = LLMSummaryEngine()
    assert engine.identity(plain, embedder) != engine.identity(hidden, embedder)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("+44 20 7946 0958", ["+44 20 7946 0958"]),
        ("call +7 (495) 123-45-67 now", ["+7 (495) 123-45-67"]),
        ("8 (916) 123-45-67", ["8 (916) 123-45-67"]),
        ("+380 44 123 4567", ["+380 44 123 4567"]),
        ("(212) 555-0187 or 030 1234567", ["(212) 555-0187", "030 1234567"]),
        ("+33 1 42 68 53 00", ["+33 1 42 68 53 00"]),
        ("release 2024-05-06 09:00", []),
        ("from 01.02.2024 to 03.04.2025", []),
        ("version 2.4.10.3345", []),
        ("ticket 1234567 and PR 88", []),
        ("IBAN DE89 3704 0044 0532 0130 00", []),
        ("price 12 345 678", []),
        ("no digits at all", []),
    ],
)
def test_phone_numbers_are_found_and_dates_versions_and_ids_are_not(
    text: str, found: list[str]
) -> None:
    assert [text[a:b] for a, b in phone_spans(text)] == found


def test_text_replacement_and_restore_round_trip() -> None:
    messages = _messages(1)
    pseudonyms = Pseudonyms.for_messages(messages)
    sent = pseudonyms.messages(messages)
    names = [m.sender_name for m in sent]
    alice, bob, carol, _, dave = names
    assert names[0] == names[3]
    assert len(set(names)) == 4
    assert all(re.fullmatch(r"Person \d{3}", n or "") for n in names)
    assert all(m.sender_peer_id is None for m in sent)
    email = re.search(r"EMAIL_\d+", sent[0].text)
    assert email is not None
    assert sent[0].text == f"Hi all, {bob}: the release is Thursday. Mail me at {email.group(0)}"
    handles = re.findall(r"@user_\d+", sent[2].text)
    phone = re.search(r"PHONE_\d+", sent[2].text)
    assert phone is not None
    assert len(handles) == 2
    assert sent[2].text == f"Ping {handles[0]} or {handles[1]}; my phone is {phone.group(0)}."
    assert sent[3].text.startswith(f"{alice} here again: ask {carol}, or write to EMAIL_")
    answer = LLMSummary(
        summary=f"{(alice or '').lower()} and {handles[1].upper()} said so; Person 9 is unknown.",
        sections=[LLMSection(title=phone.group(0), body=f"{dave} wrote", message_ids=[])],
    )
    restored = pseudonyms.restore(answer)
    assert restored.summary == "Alice Moreau and @carol_ops said so; Person 9 is unknown."
    assert restored.sections[0].title == "(212) 555-0187"
    assert restored.sections[0].body == "u_dave wrote"
    assert json.dumps(pseudonyms.values, ensure_ascii=False).count("Alice Moreau") == 1
