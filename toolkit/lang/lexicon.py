"""What the toolkit knows of one language to read it: ``Lexicon`` (letters, stop words,
stems), built from a language's ``<code>/lexicon.py`` module, and the libraries behind
the stemmers: Snowball (PyStemmer) for English and Russian, and for Ukrainian, which
Snowball does not have, pymorphy3's Ukrainian dictionary (the lemma is the stem)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType
from typing import Any


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


def lexicon_from(module: ModuleType) -> Lexicon:
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


__all__ = ["Lexicon", "lexicon_from", "morph_analyzer", "snowball", "words"]
