"""Scoring a digest of a labelled window: pure functions, no engine and no I/O.

A digest is seen as ``Output``: its section items (kind, the message ids each rests
on, the act's own message first) and all its text (summary, titles, bodies). Against a
window's ``Labels``:

- an item of a scored section is *true* when its first id is labelled for that section
  (or acceptable there), else *false*;
- a labelled id is *found* when an item of its section starts with it; an id labelled
  in two sections (a booking with a date is a decision and a plan) is required in one
  of them: found in the other, it leaves this one's count;
- a key fact is *found* when one of its strings is in the text (case-insensitive; a
  number is not found inside a longer number, a word may take an ending);
- the "must be 0" failures: e-mail addresses and phone numbers in the text, and
  reported speech that names the addressee twice ("Kai asks Ugo whether Ugo is …").

A plan's date is checked where the section shows one: ``render_day`` writes a date as
the digest's language does, and a plan whose line shows another day than its labelled
one has a wrong date (its posting day, which heads the line, and days its message
writes itself, which its quote may hold, aside).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from toolkit.evaluate.digests.windows import SCORED, KeyFact, Window
from toolkit.lang import packs
from toolkit.models import SectionKind

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE = re.compile(r"\+?\(?\d[\d ()\-\u00a0]{5,}\d")
PHONE_DIGITS = 9
"""A run of digits and separators this long is a phone number wherever it comes from;
a shorter one (6+) only when it is part of a number the window's messages give."""
CLAUSE = r"(?:(?![,;:!?…—]|\.\s)[^\n])"
"""One character of the same clause: "asks Tom whether …, and Tom answers" names Tom
twice in two clauses, which is right."""


@dataclass(frozen=True, slots=True)
class Item:
    """One line of a digest's section: its kind, the ids it rests on, its text."""

    kind: SectionKind
    ids: tuple[int, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Output:
    """What a digest of one window says: its items and all its text."""

    items: tuple[Item, ...]
    text: str


@dataclass(slots=True)
class SectionScore:
    """One scored section of one digest."""

    true: int = 0
    false: list[Item] = field(default_factory=list)
    found: int = 0
    required: int = 0
    missed: list[int] = field(default_factory=list)


@dataclass(slots=True)
class WindowScore:
    """Everything measured on one digest of one window."""

    window: str
    language: str
    asked: str
    sections: dict[SectionKind, SectionScore]
    facts_found: int
    facts_total: int
    facts_missed: list[KeyFact]
    emails: list[str]
    phones: list[str]
    repeated_addressee: list[str]
    dates_right: int = 0
    dates_wrong: list[Item] = field(default_factory=list)

    @property
    def same_language(self) -> bool:
        """Whether the digest was asked in the window's own language."""
        return self.language == self.asked

    @property
    def clean(self) -> bool:
        """No false item in any scored section."""
        return not any(s.false for s in self.sections.values())


def _folded(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").replace("\u202f", " ").split()).casefold()


def contains(text: str, needle: str) -> bool:
    """Whether ``needle`` is in ``text`` (case-folded, spaces unified): not right after a
    letter or digit, and when it ends with a digit, not before another digit."""
    text, needle = _folded(text), _folded(needle)
    if not needle:
        return False
    for match in re.finditer(re.escape(needle), text):
        start, end = match.span()
        if needle[0].isalnum() and start > 0 and text[start - 1].isalnum():
            continue
        if needle[-1].isdigit() and end < len(text) and text[end].isdigit():
            continue
        return True
    return False


def fact_found(fact: KeyFact, text: str, *, same_language: bool) -> bool:
    """Whether any of the fact's strings (its anchors alone across languages) is in ``text``."""
    return any(contains(text, alt) for alt in fact.alternatives(same_language=same_language))


def emails(text: str) -> list[str]:
    """Every e-mail address in ``text``."""
    return EMAIL.findall(text)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def phones(text: str, messages: Iterable[str] = ()) -> list[str]:
    """Phone numbers in ``text``: runs of ``PHONE_DIGITS``+ digits (with spaces, dashes,
    brackets), or of 6+ that are part of a phone number in ``messages``."""
    known = [_digits(m) for source in messages for m in PHONE.findall(source)]
    known = [k for k in known if len(k) >= PHONE_DIGITS]
    found = []
    for match in PHONE.findall(text):
        digits = _digits(match)
        if len(digits) >= PHONE_DIGITS or (len(digits) >= 6 and any(digits in k for k in known)):
            found.append(match.strip())
    return found


def repeated_addressee(text: str, names: Iterable[str]) -> list[str]:
    """Reported speech that repeats the addressee's name where a pronoun belongs:
    "Kai H. asks Ugo H. whether Ugo H. is …" (the verbs of the packs that retell,
    ``LanguagePack.asks_whom``)."""
    found = []
    for asks in (p.asks_whom for p in packs() if p.asks_whom is not None):
        for name in {n for n in names if n}:
            who = re.escape(name)
            pattern = rf"(?<!\w){asks.format(who=who)}{CLAUSE}{{0,120}}?(?<!\w){who}(?!\w)"
            found += [m.group(0) for m in re.finditer(pattern, text)]
    return found


def _distinct(found: Iterable[str]) -> list[str]:
    """Each failure once per digest (the same line may be in the summary and a section)."""
    return list(dict.fromkeys(found))


def _section_scores(window: Window, items: Sequence[Item]) -> dict[SectionKind, SectionScore]:
    labels = window.labels
    firsts = {kind: {i.ids[0] for i in items if i.kind is kind and i.ids} for kind in SCORED}
    scores = {}
    for kind in SCORED:
        score = SectionScore()
        for item in items:
            if item.kind is kind:
                if item.ids and item.ids[0] in labels.allowed(kind):
                    score.true += 1
                else:
                    score.false.append(item)
        for i in sorted(labels.required(kind)):
            elsewhere = any(i in firsts[k] and i in labels.required(k) for k in SCORED if k != kind)
            if i in firsts[kind]:
                score.found += 1
            elif elsewhere:
                continue
            else:
                score.missed.append(i)
            score.required += 1
        scores[kind] = score
    return scores


def _dates(
    window: Window, items: Sequence[Item], render_day: Callable[[date], str] | None
) -> tuple[int, list[Item]]:
    """Plans whose line shows their labelled day, and those that show another day."""
    if render_day is None:
        return 0, []
    right, wrong = 0, []
    for item in items:
        if item.kind is not SectionKind.PLANS or not item.ids:
            continue
        message = window.message(item.ids[0])
        if message is None or item.ids[0] not in window.labels.plans:
            continue
        posted = message.posted_at.astimezone(window.zone).date()
        labelled = window.labels.plans[item.ids[0]]
        days = [posted + timedelta(days=n) for n in range(-1, 200)]
        # A day the message itself writes may be in its quote; the posting day heads the line.
        shown = {d for d in days if contains(item.text, render_day(d))} - {posted}
        shown -= {d for d in shown if contains(message.text, render_day(d))}
        if labelled in shown:
            right += 1
        if shown - {labelled}:
            wrong.append(item)
    return right, wrong


def score_output(
    window: Window,
    output: Output,
    *,
    asked: str,
    render_day: Callable[[date], str] | None = None,
) -> WindowScore:
    """Score one digest of ``window`` written in the language ``asked``.

    Args:
        window: the labelled window.
        output: the digest's items and text.
        asked: the language the digest was asked in (the anchors alone count for facts
            when it is not the window's).
        render_day: how the digest's language writes a date (no date check without it).
    """
    same = asked == window.language
    facts = window.labels.key_facts
    missed = [f for f in facts if not fact_found(f, output.text, same_language=same)]
    counted = [f for f in facts if f.alternatives(same_language=same)]
    right, wrong = _dates(window, output.items, render_day)
    texts = [m.text for m in window.messages]
    return WindowScore(
        window=window.id,
        language=window.language,
        asked=asked,
        sections=_section_scores(window, output.items),
        facts_found=len(counted) - len([f for f in missed if f in counted]),
        facts_total=len(counted),
        facts_missed=missed,
        emails=_distinct(emails(output.text)),
        phones=_distinct(phones(output.text, texts)),
        repeated_addressee=_distinct(
            repeated_addressee(output.text, {m.sender_name or "" for m in window.messages})
        ),
        dates_right=right,
        dates_wrong=wrong,
    )


__all__ = [
    "Item",
    "Output",
    "SectionScore",
    "WindowScore",
    "contains",
    "emails",
    "fact_found",
    "phones",
    "repeated_addressee",
    "score_output",
]
