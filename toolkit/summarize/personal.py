"""Personal data in what a summary copies: e-mail addresses and phone numbers.

No summary copies either (DESIGN.md §5): the extractive engine masks them in every quote
before it cuts one, and every engine's answer is masked once more as a whole before it
leaves (``mask_summary``); the message link leads a reader who needs one to it. The mark
is the requested language pack's (``[e-mail]``, ``[телефон]``), or ``[…]`` in a language
without a pack.

- E-mail addresses: a careful pattern (a local part of letters, digits and ``.+-_``, an
  ``@``, a host of dot-separated labels ending in a top-level domain of letters), never
  inside a word.
- Phone numbers: ``phonenumbers`` (Google's libphonenumber) at its ``VALID`` leniency,
  international numbers (``+48 123 456 789``) anywhere and national ones in the formats
  of ``NATIONAL_REGIONS`` (``8 (916) 123-45-67``, ``050 123 4567``). A number must
  have ``MIN_PHONE_DIGITS`` digits and not read as a date, so dates, times, prices,
  versions and order numbers stay ("2026-10-12", "13:40", "€120", "3.2.1", "order 123456").
  Links are never searched: their digits are ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from toolkit.models import Summary
from toolkit.text import URL_RE

NATIONAL_REGIONS = ("US", "GB", "DE", "FR", "PL", "RU", "UA")
"""Regions whose national phone formats (no +) are recognised; + numbers are, anywhere."""
MIN_PHONE_DIGITS = 8
"""Fewer digits are an order number or a local extension, not a number to call."""

EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@(?:[\w-]+\.)+[^\W\d_]{2,24}\b")
_DIGIT_RE = re.compile(r"\d")
_DATE_RE = re.compile(r"\d{1,4}([./-])\d{1,2}\1\d{2,4}")
_NEUTRAL = "[…]"


def _blanked(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with ``pattern``'s matches blanked, its length kept (offsets stay true)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def phone_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of the phone numbers in ``text``, leftmost first (links
    and e-mail addresses are not searched)."""
    if len(_DIGIT_RE.findall(text)) < MIN_PHONE_DIGITS:
        return []
    import phonenumbers

    searched = _blanked(_blanked(text, EMAIL_RE), URL_RE)
    spans: set[tuple[int, int]] = set()
    for region in NATIONAL_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(
            searched, region, leniency=phonenumbers.Leniency.VALID
        ):
            raw = match.raw_string
            if len(_DIGIT_RE.findall(raw)) >= MIN_PHONE_DIGITS and not _DATE_RE.fullmatch(raw):
                spans.add((match.start, match.end))
    # Two regions may read overlapping numbers: keep the longest, leftmost.
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


@dataclass(frozen=True, slots=True)
class Marks:
    """What stands in a summary for an e-mail address and for a phone number."""

    email: str = _NEUTRAL
    phone: str = _NEUTRAL


@lru_cache(maxsize=16)
def marks_for(language: str) -> Marks:
    """The marks of ``language``'s pack (``mark_email``, ``mark_phone``), or ``[…]``."""
    from toolkit.lang import find

    book = find(language)
    if book is None:
        return Marks()
    return Marks(email=book.say("mark_email"), phone=book.say("mark_phone"))


_PHONE_TAIL_RE = re.compile(r"[\d\s+()./-]+$")


def head_to_mask(text: str, reach: int) -> str:
    """``text`` up to about ``reach`` characters, cut where no e-mail address, link or
    phone number is split: at a word's end, then before the digits, spaces and signs a
    phone number may end the head with (``call +1 555 01`` keeps ``call``). The whole
    ``text`` when it is no longer than ``reach``. Masking costs about as much per
    character as a phone-number search in seven regions: a bounded result needs no more
    than its head masked."""
    if len(text) <= reach:
        return text
    head = text[:reach]
    if not text[reach].isspace():  # the last word goes on past the reach: drop it
        head = head.rsplit(None, 1)[0] if head.strip() else ""
    return _PHONE_TAIL_RE.sub("", head)


def mask(text: str, marks: Marks) -> str:
    """``text`` with every e-mail address and phone number replaced by its mark."""
    if not text:
        return text
    text = EMAIL_RE.sub(marks.email, text)
    for start, end in reversed(phone_spans(text)):
        text = text[:start] + marks.phone + text[end:]
    return text


def mask_summary(summary: Summary, marks: Marks) -> Summary:
    """The summary with ``mask`` applied to its text, titles, bodies and items."""
    sections = [
        replace(
            s,
            title=mask(s.title, marks),
            body=mask(s.body, marks),
            items=tuple(replace(item, text=mask(item.text, marks)) for item in s.items),
        )
        for s in summary.sections
    ]
    return replace(summary, summary=mask(summary.summary, marks), sections=sections)
