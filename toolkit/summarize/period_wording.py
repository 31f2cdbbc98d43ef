"""Period wording: find it in a source summary, and remove the sentences that carry it.

A source summary says what a source is about, timelessly; dates, "this week",
"during the period", "за период", "на этой неделе" and the like belong to period
summaries only. The patterns are the language packs' (``lang/<code>``) and numeric
dates in any language; URLs are masked before matching, so a link's digits never look
like a date. Sentences are ``lang.sentences``' (never ending after a pack's
abbreviation, "Mr.", "т.е.").
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.lang.sentences import split_sentences
from toolkit.text import URL_RE

_NUMERIC_DATES = (
    # Dates in numbers, in any language: 2024-05-01, 2024-05-01T09:00:00Z (an ISO stamp,
    # time and all), 01.05.2024, 5/1/24.
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:T\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])",
    r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b",
)


@lru_cache(maxsize=1)
def _period_re() -> re.Pattern[str]:
    from toolkit.lang import packs

    patterns = [*_NUMERIC_DATES, *(p for pack in packs() for p in pack.period_patterns)]
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def _masked(text: str) -> str:
    # Same length, so match offsets still point into the original text.
    return URL_RE.sub(lambda m: "\u2063" * len(m.group(0)), text)


def find_period_wording(text: str) -> list[str]:
    """Every piece of period wording in ``text`` (empty when there is none)."""
    masked = _masked(text)
    return [text[m.start() : m.end()] for m in _period_re().finditer(masked)]


def has_period_wording(text: str) -> bool:
    """Whether ``text`` uses period wording."""
    return bool(_period_re().search(_masked(text)))


def remove_period_sentences(text: str, *, keep: str = "") -> str:
    """Drop every sentence (or line) of ``text`` that uses period wording, but ``keep``
    (a sentence the engine wrote that may name dates: what a source summary read)."""
    kept = [
        s
        for s in split_sentences(text)
        if not has_period_wording(s) or (keep and s.strip() == keep)
    ]
    out = "".join(kept)
    out = re.sub(r"[ \t]+\n", "\n", out)
    out = re.sub(r"\n{3,}", "\n\n", out)
    return re.sub(r"[ \t]{2,}", " ", out).strip()


def remove_period_phrases(text: str) -> str:
    """Cut the period wording out of a short text such as a title, keeping the rest."""
    if not has_period_wording(text):
        return text.strip()
    # Masking replaced URLs; a title carries none worth keeping, so drop the mask.
    cleaned = _period_re().sub("", _masked(text)).replace("\u2063", "")
    cleaned = re.sub(r"\s{2,}", " ", cleaned)
    return cleaned.strip(" ,;:-–—(").removesuffix("()").strip()


__all__ = [
    "find_period_wording",
    "has_period_wording",
    "remove_period_phrases",
    "remove_period_sentences",
    "split_sentences",
]
