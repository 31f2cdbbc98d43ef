"""Personal data in what a summary copies: e-mail addresses, phone numbers, secrets.

No summary copies any (DESIGN.md §5): the extractive engine masks them in every quote
before it cuts one, and every engine's answer is masked once more as a whole before it
leaves (``mask_summary``: the extractive, LLM and hybrid engines each, and the pipeline
after whichever ran); the message link leads a reader who needs one to it. The mark
is the requested language pack's (``[e-mail]``, ``[телефон]``, ``[password or key]``,
``[номер карты]``, ``[банківський рахунок]``), or ``[…]`` in a language without a pack.
Passwords, logins, keys and tokens, card numbers and IBANs are found by
``toolkit.summarize.credentials``; they are masked first, so that no digit of a card
reads as a phone number. A link's tracking and share parameters (``?si=``, ``?igsh=``,
``utm_*``) are no secret: they are dropped, the link kept.

- E-mail addresses: a careful pattern (a local part of letters, digits and ``.+-_``, an
  ``@``, a host of dot-separated labels ending in a top-level domain of letters), never
  inside a word.
- Phone numbers: ``phonenumbers`` (Google's libphonenumber): international numbers
  (``+48 123 456 789``, ``+44 7700 900123``) anywhere, of a possible length for their
  country (a number outside the ranges in use is still someone's to call), and national
  ones valid in one of ``NATIONAL_REGIONS`` (``8 (916) 123-45-67``, ``050 123 4567``,
  ``9123 4567``). Only runs of digits that can be one are searched. A number must
  have ``MIN_PHONE_DIGITS`` digits and not read as a date, so dates, times, prices,
  versions and order numbers stay ("2026-10-12", "13:40", "€120", "3.2.1", "order 123456").
  Links are never searched: their digits are ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from toolkit.models import Summary
from toolkit.summarize.credentials import (
    card_spans,
    iban_spans,
    merged,
    secret_spans,
    without_tracking,
)
from toolkit.text import URL_RE

NATIONAL_REGIONS = (
    *("US", "GB", "IE", "AU", "IN", "SG", "DE", "FR", "IT", "ES", "NL", "CZ"),
    *("PL", "RU", "UA", "BY", "KZ", "GE", "AM", "IL", "TR"),
)
"""Regions whose national phone formats (no +) are recognised; + numbers are, anywhere."""
MIN_PHONE_DIGITS = 8
"""Fewer digits are an order number or a local extension, not a number to call."""

EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@(?:[\w-]+\.)+[^\W\d_]{2,24}\b")
_DIGIT_RE = re.compile(r"\d")
_DATE_RE = re.compile(r"\d{1,4}([./-])\d{1,2}\1\d{2,4}")
_RUN_RE = re.compile(r"[+(]?\d[\d\s().:\-/]*\d")
_VERSION_RE = re.compile(r"\d+(?:\.\d+){2,}")
"""A version or an address (``2.4.10.3345``, ``192.168.1.10``): dots alone, no number."""
"""A run of digits and what separates a phone number's groups: where one may be."""
_NEUTRAL = "[…]"


def _blanked(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with ``pattern``'s matches blanked, its length kept (offsets stay true)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _runs(text: str) -> list[tuple[int, int]]:
    """The runs of ``text`` that may hold a phone number (``MIN_PHONE_DIGITS`` digits or
    more), a character of context either side."""
    return [
        (max(0, m.start() - 1), min(len(text), m.end() + 1))
        for m in _RUN_RE.finditer(text)
        if len(_DIGIT_RE.findall(m.group(0))) >= MIN_PHONE_DIGITS
    ]


def phone_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of the phone numbers in ``text``, leftmost first (links
    and e-mail addresses are not searched)."""
    if len(_DIGIT_RE.findall(text)) < MIN_PHONE_DIGITS:
        return []
    import phonenumbers

    searched = _blanked(_blanked(text, EMAIL_RE), URL_RE)
    spans: set[tuple[int, int]] = set()
    readings: list[tuple[str | None, int]] = [(None, phonenumbers.Leniency.POSSIBLE)]  # "+44 …"
    readings += [(region, phonenumbers.Leniency.VALID) for region in NATIONAL_REGIONS]
    for start, end in _runs(searched):
        run = searched[start:end]
        for region, leniency in readings:
            for match in phonenumbers.PhoneNumberMatcher(run, region, leniency=leniency):
                raw = match.raw_string
                if len(_DIGIT_RE.findall(raw)) < MIN_PHONE_DIGITS:
                    continue
                if not _DATE_RE.fullmatch(raw) and not _VERSION_RE.fullmatch(raw):
                    spans.add((start + match.start, start + match.end))
    # Two regions may read overlapping numbers: keep the longest, leftmost.
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


@dataclass(frozen=True, slots=True)
class Marks:
    """What stands in a summary for an e-mail address, a phone number, a password or
    key, a card number and a bank account (IBAN)."""

    email: str = _NEUTRAL
    phone: str = _NEUTRAL
    secret: str = _NEUTRAL
    card: str = _NEUTRAL
    iban: str = _NEUTRAL


@lru_cache(maxsize=16)
def marks_for(language: str) -> Marks:
    """The marks of ``language``'s pack (``mark_email``, ``mark_phone``, ``mark_secret``,
    ``mark_card``, ``mark_iban``), or ``[…]``."""
    from toolkit.lang import find

    book = find(language)
    if book is None:
        return Marks()
    return Marks(
        email=book.say("mark_email"),
        phone=book.say("mark_phone"),
        secret=book.say("mark_secret"),
        card=book.say("mark_card"),
        iban=book.say("mark_iban"),
    )


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


def _replaced(text: str, spans: list[tuple[int, int]], mark: str) -> str:
    for start, end in reversed(spans):
        text = text[:start] + mark + text[end:]
    return text


def mask_credentials(text: str, marks: Marks) -> str:
    """``text`` with every password, key, token, card number and IBAN replaced by its
    mark (``credentials``), and each link's tracking parameters dropped (a share id is
    no secret, and says nothing: ``credentials.without_tracking``)."""
    if not text:
        return text
    text = without_tracking(text)
    text = _replaced(text, secret_spans(text), marks.secret)
    text = _replaced(text, merged(iban_spans(text)), marks.iban)
    return _replaced(text, merged(card_spans(text)), marks.card)


def mask(text: str, marks: Marks) -> str:
    """``text`` with every secret (``mask_credentials``), e-mail address and phone
    number replaced by its mark."""
    if not text:
        return text
    text = mask_credentials(text, marks)
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
