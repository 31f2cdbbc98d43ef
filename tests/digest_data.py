"""A small labelled window (Tokyo time) and its scoring, for the labelled-set tests."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from toolkit.evaluate.digests.acts import Digest
from toolkit.evaluate.digests.score import Item, Output, WindowScore, score_output
from toolkit.evaluate.digests.windows import KeyFact, Labels, Window
from toolkit.models import Message, SectionKind, SourceKind, Summary

START = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
"""21:00 in Tokyo."""
TEXTS = [
    "Which bus do we take tomorrow?",
    "The 7:45 one",
    "Booked 4 seats on the 7:45 bus, back at 13:40",
    "I think it might rain",
    "Does the onsen take tattoos?",
    "ok",
]


def window(**labels: Any) -> Window:
    """Six messages of Kai H. and Ugo H.: an agreement (1, 2), a booking that is a
    decision and a plan (3), a hedge (4), an open question (5); 1 is an acceptable plan."""
    messages = tuple(
        Message(0, n, START + timedelta(minutes=n), text, "p", "Kai H." if n % 2 else "Ugo H.")
        for n, text in enumerate(TEXTS, 1)
    )
    fields: dict[str, Any] = {
        "open_questions": frozenset({5}),
        "decisions": frozenset({3}),
        "agreements": frozenset({(1, 2)}),
        "plans": {3: date(2025, 3, 11)},
        "key_facts": (KeyFact(("7:45",), ("7:45",)), KeyFact(("tattoo",), ())),
        "acceptable": {SectionKind.PLANS: frozenset({1})},
    } | labels
    return Window("w", "en", SourceKind.CHAT, "Asia/Tokyo", "t", "", messages, Labels(**fields))


def score(*items: Item, text: str = "", asked: str = "en", **options: Any) -> WindowScore:
    """The window's score for a digest of ``items`` (and ``text``) asked in ``asked``."""
    body = "\n".join([text, *(i.text for i in items)])
    return score_output(window(), Output(items, body), asked=asked, **options)


def digest(scored: WindowScore) -> Digest:
    """A ``Digest`` around a score (an empty summary)."""
    return Digest(window(), scored.asked, Summary("w", "", [], []), scored)
