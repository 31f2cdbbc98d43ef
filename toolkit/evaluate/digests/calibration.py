"""The calibration cases of ``../shared/data/eval/dev/digest_acts.jsonl``, scored.

Each case is a few messages, an act a digest might claim (``decision``, ``agrees``,
``open_question``, ``plan``, or a ``reported`` sentence), its target, and whether the
claim is true. The extractive engine summarises the case in its language; the case is
*claimed* when the digest makes the act on the target:

- ``decision``, ``open_question``, ``plan``: an item of that section starts with the
  target id, or (decision, open question) a summary sentence in the pack's template
  for the act quotes the target;
- ``agrees``: a decisions item cites the target after its proposal with the pack's
  agreement template, or a summary sentence of the agreement template does;
- ``reported``: the target sentence is in the digest.

A case is right when claimed equals ``truth``. A claim where ``truth`` is false is a
*false claim* (the digest says something false); no claim where it is true is a *miss*
(the digest says less, which the design allows where the engine is unsure).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.lang.base import LanguagePack
from toolkit.models import Message, SectionKind, SourceKind, Summary

CASES_FILE = DEV_DIR / "digest_acts.jsonl"
SECTION_OF = {
    "decision": SectionKind.DECISIONS,
    "open_question": SectionKind.OPEN_QUESTIONS,
    "plan": SectionKind.PLANS,
}
SUMMARY_TEMPLATES = {
    "decision": ("decided", "agreed_decision"),
    "open_question": ("open_question",),
    "agrees": ("agreed", "agreed_decision"),
}
"""The pack's summary sentences that claim each act (``{quote}`` is what they quote)."""
AGREEMENT_LINES = ("line_agreed", "line_decided_agreed")
_START = datetime(2025, 3, 10, 9, 0)
"""When each case starts, in its own zone (a Monday morning)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One calibration case."""

    id: str
    language: str
    kind: SourceKind
    tz: str
    messages: tuple[Message, ...]
    act: str
    target: int | str
    truth: bool
    why: str

    @property
    def zone(self) -> ZoneInfo:
        """The case's time zone."""
        return ZoneInfo(self.tz)


@dataclass(frozen=True, slots=True)
class CaseResult:
    """A case, whether the digest claimed its act, and the digest's text."""

    case: Case
    claimed: bool
    text: str

    @property
    def right(self) -> bool:
        """Whether the digest claimed the act exactly when it is true."""
        return self.claimed == self.case.truth


def _case(row: dict[str, Any]) -> Case:
    start = _START.replace(tzinfo=ZoneInfo(row["tz"]))
    messages = tuple(
        Message(
            source_id=0,
            messenger_message_id=m["id"],
            posted_at=(start + timedelta(minutes=m["minute"])).astimezone(UTC),
            text=m["text"],
            sender_peer_id=m["sender"],
            sender_name=m["sender"],
            reply_to=m.get("reply_to"),
        )
        for m in row["messages"]
    )
    return Case(
        row["id"], row["lang"], SourceKind(row["kind"]), row["tz"], messages,
        row["act"], row["target"], bool(row["truth"]), row.get("why", ""),
    )  # fmt: skip


def load_cases(path: Path | str = CASES_FILE) -> list[Case]:
    """Every case of the file, in order."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [_case(json.loads(line)) for line in lines if line.strip()]


def template_pattern(template: str, quotes: tuple[str, str] = ("“", "”")) -> re.Pattern[str]:
    """A template ("{who} asks {quote}.") as a pattern; ``quote`` is a named group that
    holds a passage in the pack's ``quotes``."""
    opening, closing = (re.escape(q) for q in quotes)
    parts, seen = [], set()
    for literal, name in re.findall(r"([^{]*)(?:\{(\w+)\})?", template):
        parts.append(re.escape(literal))
        if name == "quote" and name not in seen:
            parts.append(rf"(?P<quote>{opening}.*?{closing})")
        elif name:
            parts.append(r".+?")
        seen.add(name)
    return re.compile("".join(parts).rstrip(r"\.") or "(?!)")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _quotes(quote: str, target: str) -> bool:
    """Whether a quote is (mostly) the target message's words."""
    words = _words(quote)
    return bool(words) and len(words & _words(target)) >= 0.6 * len(words)


def _says(text: str, templates: Sequence[str], target: str | None, quotes: tuple[str, str]) -> bool:
    """Whether ``text`` has a sentence of one of ``templates`` (quoting ``target``, when given)."""
    for template in templates:
        for match in template_pattern(template, quotes).finditer(text):
            quote = match.groupdict().get("quote")
            if target is None or quote is None or _quotes(quote, target):
                return True
    return False


def claims(case: Case, summary: Summary, book: LanguagePack) -> bool:
    """Whether ``summary``, written with the pack ``book``, makes the case's act on its target."""
    if case.act == "reported":
        return str(case.target).rstrip(".").casefold() in _text(summary).casefold()
    target = int(case.target)
    message = next(m for m in case.messages if m.messenger_message_id == target)
    items = [(s.kind, [int(i) for i in item.messenger_message_ids], item.text)
             for s in summary.sections for item in s.items]  # fmt: skip
    quotes = (book.open_quote, book.close_quote)
    known = [book.templates[k] for k in SUMMARY_TEMPLATES.get(case.act, ()) if k in book.templates]
    said = _says(summary.summary, known, message.text, quotes)
    if case.act == "agrees":
        lines = [book.templates[k] for k in AGREEMENT_LINES if k in book.templates]
        return said or any(
            kind is SectionKind.DECISIONS and target in ids[1:] and _says(text, lines, None, quotes)
            for kind, ids, text in items
        )
    section = SECTION_OF[case.act]
    return said or any(kind is section and ids[:1] == [target] for kind, ids, _ in items)


def _text(summary: Summary) -> str:
    return "\n".join([summary.summary, *(f"{s.title}\n{s.body}" for s in summary.sections)])


def case_rows(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """One row per act: cases, right, false claims, misses (with the case ids)."""
    rows = []
    for act in dict.fromkeys(r.case.act for r in results):
        mine = [r for r in results if r.case.act == act]
        rows.append(
            {
                "act": act,
                "cases": len(mine),
                "right": sum(r.right for r in mine),
                "false claims": ", ".join(
                    r.case.id for r in mine if r.claimed and not r.case.truth
                ),
                "missed": ", ".join(r.case.id for r in mine if r.case.truth and not r.claimed),
            }
        )
    return rows


__all__ = [
    "CASES_FILE",
    "Case",
    "CaseResult",
    "case_rows",
    "claims",
    "load_cases",
    "template_pattern",
]
