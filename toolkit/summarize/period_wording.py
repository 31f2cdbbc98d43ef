"""Period wording: find it in a source summary, and remove the sentences that carry it.

A source summary says what a source is about, timelessly; dates, "this week",
"during the period", "за период", "на этой неделе" and the like belong to period
summaries only. The patterns cover English, Russian and numeric dates in any language;
URLs are masked before matching, so a link's digits never look like a date.
"""

from __future__ import annotations

import re

from toolkit.text import URL_RE

_MONTHS_EN = "january|february|march|april|may|june|july|august|september|october|november|december"
_MONTHS_EN_SHORT = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_MONTHS_RU_GEN = "января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря"
_MONTHS_RU_PREP = (
    "январе|феврале|марте|апреле|мае|июне|июле|августе|сентябре|октябре|ноябре|декабре"
)
_UNITS_EN = r"(?:period|week|weekend|month|year|day|quarter|fortnight|time ?frame|date range)"

_PATTERNS: tuple[str, ...] = (
    # Dates in numbers: 2024-05-01, 01.05.2024, 5/1/24.
    r"\b\d{4}-\d{1,2}-\d{1,2}\b",
    r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b",
    # English
    rf"\b(?:this|last|past|previous|next|current|same|that|coming) {_UNITS_EN}s?\b",
    rf"\b(?:during|over|in|within|for|throughout|across|through) the (?:\w+ )?{_UNITS_EN}s?\b",
    r"\b(?:today|yesterday|tomorrow|tonight|recently|lately|nowadays|currently)\b",
    r"\b(?:this|tomorrow|yesterday|on \w+day) (?:morning|afternoon|evening|night)\b",
    r"\b(?:right now|just now|at the moment|at present|these days|earlier today|later today|"
    r"the other day|a (?:few|couple of) (?:days|weeks|hours) ago|(?:\d+|an?) (?:hours?|days?|"
    r"weeks?|minutes?) ago)\b",
    rf"\b(?:{_MONTHS_EN}|(?:{_MONTHS_EN_SHORT})\.?) \d{{1,2}}(?:st|nd|rd|th)?\b",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS_EN})\b",
    r"\b(?:in|since|until|till|by|during|through) (?:early |late |mid-)?"
    rf"(?:{_MONTHS_EN}|(?:19|20)\d\d)\b",
    r"\b(?:selected|given|reporting|covered|whole|entire|summary|this|the) period\b",
    # Russian
    r"\bза (?:\w+ )?(?:период\w*|недел\w+|месяц\w*|год\w*|сутки|день|дни|квартал\w*)",
    r"\bв течение (?:\w+ )?(?:период\w*|недел\w+|месяц\w*|год\w*|дн\w+|квартал\w*)",
    r"\b(?:на|в) (?:эт\w+|прошл\w+|следующ\w+|текущ\w+|данн\w+|ту|той) недел\w+",
    r"\bв (?:эт\w+|прошл\w+|текущ\w+|данн\w+|указанн\w+|выбранн\w+) "
    r"(?:месяц\w*|год\w*|квартал\w*|период\w*)",
    r"\b(?:сегодня|вчера|завтра|позавчера|послезавтра|недавно|на днях|в последнее время|"
    r"сейчас|в данный момент|в настоящее время|на данный момент|только что|утром|вечером|"
    r"днём|днем|ночью|сегодняшн\w+|вчерашн\w+|завтрашн\w+)\b",
    rf"\b\d{{1,2}} (?:{_MONTHS_RU_GEN})\b",
    rf"\b(?:в|с|до|по) (?:{_MONTHS_RU_PREP}|{_MONTHS_RU_GEN})\b",
    r"\bв (?:19|20)\d\d году\b",
    r"\b(?:эт\w+|данн\w+|указанн\w+|выбранн\w+|отчётн\w+|отчетн\w+|весь) период\w*",
    r"\bпериод(?:а|е|у|ом)?\b",
)
_PERIOD_RE = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
# A sentence ends at . ! ? … (and closing quotes) before white space, or at a line break;
# a dot inside a URL or a version number ("v2.1") ends nothing.
_BOUNDARY_RE = re.compile(r"((?<=[.!?…])[\"'”»)]*[ \t]+|(?<=[.!?…][\"'”»)])[ \t]+|\n+)")


def _masked(text: str) -> str:
    # Same length, so match offsets still point into the original text.
    return URL_RE.sub(lambda m: "\u2063" * len(m.group(0)), text)


def find_period_wording(text: str) -> list[str]:
    """Every piece of period wording in ``text`` (empty when there is none)."""
    masked = _masked(text)
    return [text[m.start() : m.end()] for m in _PERIOD_RE.finditer(masked)]


def has_period_wording(text: str) -> bool:
    """Whether ``text`` uses period wording."""
    return bool(_PERIOD_RE.search(_masked(text)))


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, each with its trailing separator; joined, they are ``text``."""
    parts = _BOUNDARY_RE.split(text)
    pieces = [
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    ]
    return [p for p in pieces if p]


def remove_period_sentences(text: str) -> str:
    """Drop every sentence (or line) of ``text`` that uses period wording."""
    kept = [s for s in split_sentences(text) if not has_period_wording(s)]
    out = "".join(kept)
    out = re.sub(r"[ \t]+\n", "\n", out)
    out = re.sub(r"\n{3,}", "\n\n", out)
    return re.sub(r"[ \t]{2,}", " ", out).strip()


def remove_period_phrases(text: str) -> str:
    """Cut the period wording out of a short text such as a title, keeping the rest."""
    cleaned = _PERIOD_RE.sub("", _masked(text)) if has_period_wording(text) else text
    if cleaned is not text:
        # Masking replaced URLs; a title carries none worth keeping, so drop the mask.
        cleaned = cleaned.replace("\u2063", "")
    cleaned = re.sub(r"\s{2,}", " ", cleaned)
    return cleaned.strip(" ,;:-–—()")
