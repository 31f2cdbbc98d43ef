"""Whether an answer is in the language that was asked for.

A small model ignores the language rule often (a Ukrainian chat summarised in Russian,
an English request answered in the chat's Russian). The answer's prose (every string of
it but ids, with placeholders, links, handles and digits left out) is identified by the
detector the language packs use (``toolkit.lang.detect``, py3langid), and is in
another language when the detector is sure of it: the requested language (or a
language the detector cannot tell from it, ``SAME``) is not the likeliest and holds less
than ``MIN_SHARE`` of the probability. Too little text (``MIN_LETTERS``) or a language the
detector does not know is never rejected.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from toolkit.lang.detect import ranked
from toolkit.lang.names import LANGUAGES
from toolkit.text import URL_RE

MIN_LETTERS = 40
"""Fewer letters than this say too little to tell a language by."""
MIN_SHARE = 0.2
"""The requested language keeps an answer with at least this share of the probability."""
SURE = 0.6
"""Another language is the answer's only when the detector gives it this much."""
SAME = (
    frozenset({"no", "nb", "nn"}),
    frozenset({"sr", "hr", "bs", "sh"}),
    frozenset({"ms", "id"}),
)
"""Languages the detector does not tell apart reliably: one of them stands for another."""

RETRY_LANGUAGE = """\
Your previous answer was written in {wrote}. Write the same JSON object again with the \
summary, every section title and every section body in {asked}."""

_NOISE = re.compile(
    r"(?i)\b(?:person|title)[ _]?\d+|@\w+|\b(?:phone|email)_\d+|\d+|[_#*`|<>\[\]{}()\"“”«»]"
)
"""What is no prose: placeholders, handles, digits, markup and quotes."""


_PER_LINE = frozenset({"items", "body"})
"""A digest's lines (and the body they make): the grounding check judges each one's
language (``grounding``) and drops a line in another; the answer's own language is that
of its summary and titles."""


def _prose(value: Any, key: str = "") -> list[str]:
    """The strings of an answer's data that are prose (not ids, not the lines the
    grounding check judges one by one)."""
    if key in _PER_LINE:
        return []
    if isinstance(value, str):
        return [] if key == "id" or key.endswith(("_id", "_ids", "ids")) else [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _prose(v, str(k))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _prose(v, key)]
    return []


def _family(code: str) -> frozenset[str]:
    return next((group for group in SAME if code in group), frozenset({code}))


def prose_language(text: str, language: str) -> str | None:
    """The language ``text`` is in when the detector is sure it is not ``language``;
    ``None`` when it is (or may be) ``language``, or cannot tell."""
    text = _NOISE.sub(" ", URL_RE.sub(" ", text))
    if sum(ch.isalpha() for ch in text) < MIN_LETTERS:
        return None
    scores = dict(ranked(text))
    family = _family(language)
    if not family & scores.keys():
        return None  # a language the detector does not know
    top = max(scores, key=lambda code: scores[code])
    if top in family or scores[top] < SURE:
        return None
    if sum(scores.get(code, 0.0) for code in family) >= MIN_SHARE:
        return None
    return top


def language_called(code: str) -> str:
    """The English name of a language the detector names (its code if not ISO 639-1)."""
    return LANGUAGES.get(code, code)


def answer_language(answer: BaseModel, language: str) -> str | None:
    """The language the answer is written in when it is surely not ``language``, else
    ``None`` (see the module)."""
    return prose_language("\n".join(_prose(answer.model_dump())), language)
