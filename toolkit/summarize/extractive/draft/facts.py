"""How many facts a message carries: what a reader who skipped the chat must learn.

Numbers (times, prices, dates, counts), names and places (a capitalised word inside a
sentence), links, and the moments its pack calls a time ("tomorrow", «в пятницу»).
Language-neutral: the only language data are the pack's time expressions. Selection
prefers such messages to openers and chit-chat (``selection.informativeness``).
"""

from __future__ import annotations

import re

from toolkit.lang.base import LanguagePack
from toolkit.lang.script import CAPITALISED
from toolkit.text import URL_RE

_NUMBER = re.compile(r"(?<![\w.])[€$£₴₽¥]?\d[\d.,:/-]*(?:\s?[€$£₴₽¥%])?(?!\w)")
_MENTION = re.compile(r"(?<!\w)@\w{3,}")
FULL = 4.0
"""Facts at which a message counts as full of them (its score is 1)."""


def fact_count(text: str, pack: LanguagePack | None) -> int:
    """The facts ``text`` names: distinct numbers, inner capitalised words (names,
    places), mentions, links and time expressions."""
    bare = URL_RE.sub(" ", text)
    numbers = {m.group(0) for m in _NUMBER.finditer(bare)}
    names = {m.group(0) for m in CAPITALISED.finditer(bare)}
    mentions = {m.group(0) for m in _MENTION.finditer(bare)}
    links = len(URL_RE.findall(text))
    times = len(pack.cue.when.findall(bare)) if pack is not None else 0
    return len(numbers) + len(names) + len(mentions) + min(links, 2) + min(times, 2)


def fact_score(text: str, pack: LanguagePack | None) -> float:
    """``fact_count`` in [0, 1] (``FULL`` facts or more: 1)."""
    return min(1.0, fact_count(text, pack) / FULL)
