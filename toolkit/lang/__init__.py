"""The words of each language that the whole toolkit reads by: one module per language.

The core of the language packs, below every feature (spaCy's per-language stop words
are the model): a ``Lexicon`` holds a language's letters, its stop words, the letter
folds its spelling allows and its stemmer. ``toolkit.text`` (search, the BM25 baseline,
the evaluation) asks ``lexicon_of`` which one reads a token; the summary engine's packs
(``toolkit.summarize.lang.<code>``) extend the lexicon of their language with everything
else they know. A language is a module here (``en``, ``ru``, ``uk``) and its code in
``CODES``; the stemmers are libraries: Snowball (PyStemmer) for English and Russian, and
for Ukrainian, which Snowball does not have, pymorphy3's Ukrainian dictionary (the
lemma is the stem).

Without a language, a token is read by its letters (``BY_LETTERS``): Cyrillic as
Russian, Latin as English. Search reads messages so, since it does not know a
message's language; the summary engine knows it and passes it.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

CODES: tuple[str, ...] = ("en", "ru", "uk")
"""The languages with a lexicon, each a module of this package."""
BY_LETTERS: tuple[str, ...] = ("ru", "en")
"""The lexicons that read a token of no known language, the first whose letters it has."""


@dataclass(frozen=True)
class Lexicon:
    """What the toolkit knows of one language to read it: letters, stop words, stems."""

    code: str
    letters: re.Pattern[str]
    """A letter of this language's alphabet, as ``toolkit.text.normalise`` leaves it."""
    stop_words: frozenset[str]
    """Function words that carry no topic (normalised: lower case, no apostrophes)."""
    stemmer: str
    """The stemmer's name: a Snowball algorithm (``english``) or ``pymorphy3``."""
    stem: Callable[[str], str]
    """The stem of one normalised token of this language."""
    script: str = "latin"
    """The script its letters are of (``latin``, ``cyrillic`` …): search matches a name
    across scripts (``toolkit.search.crossscript``)."""
    to_latin: Callable[[str], str] | None = None
    """A token of it in Latin letters (a transliteration library's table); ``None`` for
    a language written in Latin letters."""
    folds: Mapping[str, str] = field(default_factory=dict)
    """Letters its spelling may write either way, to the one normalising keeps."""


def lexicon_from(module: Any) -> Lexicon:
    """A lexicon whose data are the constants of ``module`` (``CODE``, ``LETTERS``,
    ``STOP_WORDS``, ``STEMMER``, optional ``SCRIPT`` and ``FOLDS``) and its functions
    ``stem`` and, for a language not written in Latin letters, ``to_latin``."""
    return Lexicon(
        code=module.CODE,
        letters=re.compile(module.LETTERS),
        stop_words=module.STOP_WORDS,
        stemmer=module.STEMMER,
        stem=module.stem,
        script=getattr(module, "SCRIPT", "latin"),
        to_latin=getattr(module, "to_latin", None),
        folds=getattr(module, "FOLDS", {}),
    )


@cache
def lexicon(code: str) -> Lexicon:
    """The lexicon of ``code`` (one of ``CODES``; ``KeyError`` for another)."""
    if code not in CODES:
        raise KeyError(code)
    return lexicon_from(importlib.import_module(f"toolkit.lang.{code}"))


def find(code: str | None) -> Lexicon | None:
    """The lexicon of ``code``, or None when the language has none."""
    return lexicon(code) if code in CODES else None


def lexicons() -> tuple[Lexicon, ...]:
    """Every lexicon, in ``CODES`` order."""
    return tuple(lexicon(code) for code in CODES)


def lexicon_of(token: str, language: str | None = None) -> Lexicon | None:
    """The lexicon that reads one normalised token: ``language``'s when the token has
    its letters, else the first of ``BY_LETTERS`` whose letters it has (None: no letter
    of any, such as digits or another script)."""
    own = find(language)
    if own is not None and own.letters.search(token):
        return own
    for code in BY_LETTERS:
        if lexicon(code).letters.search(token):
            return lexicon(code)
    return None


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (a lexicon's lists are written so)."""
    return frozenset(text.split())


_snowball = threading.local()


def snowball(algorithm: str) -> Callable[[str], str]:
    """A Snowball (PyStemmer) stemmer of ``algorithm``, one per thread (PyStemmer
    objects are not thread-safe)."""

    def stem(token: str) -> str:
        stemmers: dict[str, Any] | None = getattr(_snowball, "stemmers", None)
        if stemmers is None:
            stemmers = _snowball.stemmers = {}
        if algorithm not in stemmers:
            import Stemmer

            stemmers[algorithm] = Stemmer.Stemmer(algorithm)
        return str(stemmers[algorithm].stemWord(token))

    return stem


@lru_cache(maxsize=4)
def morph_analyzer(code: str) -> Any:
    """The shared pymorphy3 analyzer of ``code`` (``ru`` or ``uk``), from its installed
    dictionary package (offline); one per language per process."""
    import pymorphy3  # type: ignore[import-untyped]

    return pymorphy3.MorphAnalyzer(lang=code)


__all__ = [
    "BY_LETTERS",
    "CODES",
    "Lexicon",
    "find",
    "lexicon",
    "lexicon_from",
    "lexicon_of",
    "lexicons",
    "morph_analyzer",
    "snowball",
    "words",
]
