"""The day and time a plan names, resolved against when its message was posted.

``dateparser`` (offline, one data set per language) reads "Wednesday night", "в
пятницу в 10:00", "у п'ятницю о 10:00" relative to the message's own time, so a
reader learns the date itself ("8 May, 20:00") in the requested language. Only what
the message's pack also calls a time expression counts: dateparser alone would read
"we" or "may" as dates. A language without a pack, or text without a time, gives None.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from toolkit.lang import packs
from toolkit.lang.base import LanguagePack


def planned_for(text: str, posted_at: datetime, pack: LanguagePack | None) -> datetime | None:
    """The first moment after ``posted_at`` that ``text`` names (relative to it)."""
    if pack is None:
        return None
    spans = [m.span() for m in pack.cue.when.finditer(text)]
    if not spans:
        return None
    from dateparser.search import search_dates  # type: ignore[import-untyped]

    settings: dict[str, Any] = {
        "RELATIVE_BASE": posted_at.replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    found = search_dates(text, languages=[pack.code], settings=settings) or []
    base: datetime = settings["RELATIVE_BASE"]
    when: datetime
    for words, when in found:
        start = text.find(words)
        # A plan is ahead of its message: "this week" (now) or "this morning" is no date.
        if when > base and any(start < end and start + len(words) > begin for begin, end in spans):
            return when.replace(tzinfo=posted_at.tzinfo) if posted_at.tzinfo else when
    return None


def named_day_only(when: datetime, posted_at: datetime) -> bool | None:
    """How precisely ``when`` was named: ``False`` a time, ``True`` a day ("tomorrow",
    "on Friday": the posting's time of day kept), ``None`` only a week or more ("next
    week", "next month": no date to show)."""
    if when.time() != posted_at.time():
        return when.hour == 0 and when.minute == 0
    days = (when.date() - posted_at.date()).days
    return None if days % 7 == 0 or days >= 28 else True


_CLOCK = re.compile(r"^(?:\D{0,3}\s)?(\d{1,2})(?::\d\d)?$")


def _time_spans(text: str, pack: LanguagePack) -> list[str]:
    return [m.group(0).strip() for m in pack.cue.when.finditer(text)]


def ambiguous_clock(text: str, pack: LanguagePack | None) -> bool:
    """Whether ``text`` names a clock time that may be morning or afternoon ("at 1:40",
    "в 7") — an hour from 1 to 12 without am/pm — and no other time."""
    if pack is None or any(p.day_part.search(text) for p in packs()):
        return False
    hours = [m.group(1) for s in _time_spans(text, pack) if (m := _CLOCK.match(s))]
    return bool(hours) and all(1 <= int(h) <= 12 for h in hours)


def names_day(text: str, pack: LanguagePack | None) -> bool:
    """Whether ``text`` names a day ("tomorrow", "on Friday", "12 May"), not only a clock."""
    if pack is None:
        return False
    return any(not _CLOCK.match(s) for s in _time_spans(text, pack))


def warm(code: str) -> None:
    """Import dateparser and load its data for the language ``code`` (seconds, once per
    process and language), so that a server's first digest does not wait for it."""
    from dateparser.search import search_dates

    search_dates("1 2", languages=[code])
