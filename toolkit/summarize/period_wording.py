"""Period wording: find it in a source summary, and remove the sentences that carry it.

A source summary says what a source is about, timelessly; dates, "this week",
"during the period", "за период", "на этой неделе" and the like belong to period
summaries only. The patterns are the language packs' (``lang/<code>``) and numeric
dates in any language; URLs are masked before matching, so a link's digits never look
like a date. Sentences never end after a pack's abbreviation ("Mr.", "т.е.").
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.text import URL_RE

_NUMERIC_DATES = (
    # Dates in numbers, in any language: 2024-05-01, 2024-05-01T09:00:00Z (an ISO stamp,
    # time and all), 01.05.2024, 5/1/24.
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:T\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])",
    r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b",
)


@lru_cache(maxsize=1)
def _period_re() -> re.Pattern[str]:
    from toolkit.summarize.lang import packs

    patterns = [*_NUMERIC_DATES, *(p for pack in packs() for p in pack.period_patterns)]
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


@lru_cache(maxsize=1)
def _abbreviation_re() -> re.Pattern[str]:
    from toolkit.summarize.lang import packs

    words = sorted({w for pack in packs() for w in pack.abbreviations}, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?:^|(?<=[\s(«“]))(?:{alternatives})\.$", re.IGNORECASE)


_INITIAL_RE = re.compile(r"(?:^|(?<=\s))[^\W\d_a-zа-яё]\.$")
"""A capital letter and a dot, in any script ("Ann K.", "Анна К."): an initial, no end."""
# A sentence ends at . ! ? … (and closing quotes) before white space, or at a line break;
# a dot inside a URL or a version number ("v2.1") ends nothing.
_BOUNDARY_RE = re.compile(r"((?<=[.!?…])[\"'”»)]*[ \t]+|(?<=[.!?…][\"'”»)])[ \t]+|\n+)")


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


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, each with its trailing separator; joined, they are ``text``."""
    parts = _BOUNDARY_RE.split(text)
    pieces = [
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    ]
    out: list[str] = []
    for piece in pieces:
        # "Mr. Smith", "т.е. так": a sentence never ends after an abbreviation of a pack.
        ended = out[-1].rstrip() if out else ""
        if (
            out
            and not out[-1].endswith("\n")
            and (_INITIAL_RE.search(ended) or _abbreviation_re().search(ended))
        ):
            out[-1] += piece
        else:
            out.append(piece)
    return [p for p in out if p]


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
