"""The calibration cases of ``digest_acts.jsonl`` are read as the digest states them: by
its section items, or by a summary sentence in the pack's template that quotes the target."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from toolkit.evaluate.digests.calibration import (
    Case,
    CaseResult,
    case_rows,
    claims,
    load_cases,
    template_pattern,
)
from toolkit.lang import pack
from toolkit.models import Message, Section, SectionItem, SectionKind, SourceKind, Summary


def _case(act: str, target: int | str, texts: list[str], truth: bool = False) -> Case:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    messages = tuple(Message(0, n, at, t, "a", "Ann") for n, t in enumerate(texts, 1))
    return Case("c", "en", SourceKind.CHAT, "UTC", messages, act, target, truth, "")


def _summary(text: str = "", *items: tuple[SectionKind, tuple[str, ...], str]) -> Summary:
    sections = [Section("t", body, kind, (SectionItem(body, ids),)) for kind, ids, body in items]
    return Summary("c", text, sections, [])


def test_template_patterns_read_the_packs_sentences() -> None:
    pattern = template_pattern("{who} asks {quote}, with no answer here")
    match = pattern.search("Ann asks “Is it open, then?”, with no answer here (link)")
    assert match is not None
    assert match["quote"] == "“Is it open, then?”"
    last = template_pattern("{who} reports a decision: {quote}.", ("«", "»"))
    match = last.search("Олег: x. Ann reports a decision: «Booked. Two tickets».")
    assert match is not None
    assert match["quote"] == "«Booked. Two tickets»"
    assert template_pattern("{who}'s question {quote} gets no answer in these messages.").search(
        "Ann's question “Is it open?” gets no answer in these messages."
    )


def test_a_case_is_claimed_by_a_section_item_or_a_summary_sentence() -> None:
    book = pack("en")
    decision = _case("decision", 1, ["I think the room might be booked already"])
    assert not claims(decision, _summary(), book)
    item = (SectionKind.DECISIONS, ("1",), "Ann reports a decision: “I think…”")
    assert claims(decision, _summary("", item), book)
    said = _summary("Ann reports a decision: “I think the room might be booked already”.")
    assert claims(decision, said, book)
    open_case = _case("open_question", 1, ["Merry Christmas everyone!"])
    assert not claims(open_case, _summary("", (SectionKind.PLANS, ("1",), "x")), book)


def test_agreement_and_reported_speech_cases() -> None:
    book = pack("en")
    agrees = _case("agrees", 2, ["Let's meet at 7", "I'm at work till 8 though"])
    declined = (SectionKind.DECISIONS, ("1", "2"), "Ann proposes “Let's meet at 7”; Ann declines")
    agreed = (SectionKind.DECISIONS, ("1", "2"), "Ann proposes “Let's meet at 7”; Ann agrees")
    assert not claims(agrees, _summary("", declined), book)
    assert claims(agrees, _summary("", agreed), book)
    reported = _case("reported", "Mary says here Susan goes", ["here you go"])
    assert claims(reported, _summary("Mary says here Susan goes."), book)
    assert not claims(reported, _summary("Mary says “here you go”."), book)


def test_case_rows_name_false_claims_and_misses() -> None:
    results = [
        CaseResult(_case("plan", 1, ["x"], truth=False), True, ""),
        CaseResult(_case("plan", 1, ["x"], truth=True), False, ""),
        CaseResult(_case("plan", 1, ["x"], truth=True), True, ""),
    ]
    assert case_rows(results) == [
        {"act": "plan", "cases": 3, "right": 1, "false claims": "c", "missed": "c"}
    ]


def test_the_cases_file_reads(dev_dir: Path) -> None:
    cases = load_cases(dev_dir / "digest_acts.jsonl")
    assert len(cases) >= 21
    tokyo = next(c for c in cases if c.tz == "Asia/Tokyo")
    assert tokyo.messages[0].posted_at.astimezone(tokyo.zone).hour == 9
    assert {c.act for c in cases} == {"decision", "agrees", "open_question", "plan", "reported"}
