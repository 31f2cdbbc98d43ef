"""The language wing: one package per language, and the registry every feature asks.

As spaCy's ``lang``: everything about one language lives in its folder,
``toolkit/lang/<code>/`` — ``lexicon`` (letters, stop words, stemmer, script: what
search and the whole toolkit read by), ``pack`` (the summary engine's
``LanguagePack``: templates, cue words, grammar) and the pack's own modules. This
package holds the registry (``CODES``), the interfaces (``lexicon.Lexicon``,
``base.LanguagePack``) and the language-neutral helpers: ``detect`` (each message's
language), ``script`` (which letters a text is in), ``sentences``, ``chatter``,
``morph`` (pymorphy3 for the Slavic packs) and ``names`` (ISO 639-1 codes and names).

A new language is a new folder here and its code in ``CODES``; no engine names one.
Without a language, a token is read by its letters (``BY_LETTERS``): Cyrillic as
Russian, Latin as English. Search reads messages so, since it does not know a
message's language; the summary engine knows it and passes it. Packs load on first use.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from toolkit.lang.lexicon import Lexicon, lexicon_from, morph_analyzer, snowball, words

if TYPE_CHECKING:
    from toolkit.lang.base import LanguagePack

CODES: tuple[str, ...] = ("en", "ru", "uk")
"""The languages with a folder here: a lexicon and a pack each."""
BY_LETTERS: tuple[str, ...] = ("ru", "en")
"""The lexicons that read a token of no known language, the first whose letters it has."""


# -- lexicons: what search and the text helpers read by ------------------------------


@cache
def lexicon(code: str) -> Lexicon:
    """The lexicon of ``code`` (one of ``CODES``; ``KeyError`` for another)."""
    if code not in CODES:
        raise KeyError(code)
    return lexicon_from(importlib.import_module(f"toolkit.lang.{code}.lexicon"))


def find_lexicon(code: str | None) -> Lexicon | None:
    """The lexicon of ``code``, or None when the language has none."""
    return lexicon(code) if code in CODES else None


def lexicons() -> tuple[Lexicon, ...]:
    """Every lexicon, in ``CODES`` order."""
    return tuple(lexicon(code) for code in CODES)


def lexicon_of(token: str, language: str | None = None) -> Lexicon | None:
    """The lexicon that reads one normalised token: ``language``'s when the token has
    its letters, else the first of ``BY_LETTERS`` whose letters it has (None: no letter
    of any, such as digits or another script)."""
    own = find_lexicon(language)
    if own is not None and own.letters.search(token):
        return own
    for code in BY_LETTERS:
        if lexicon(code).letters.search(token):
            return lexicon(code)
    return None


# -- packs: what the summary engines read and write by -------------------------------


@cache
def _load(code: str) -> LanguagePack:
    module = importlib.import_module(f"toolkit.lang.{code}.pack")
    found: LanguagePack = module.PACK
    return found


def pack(code: str) -> LanguagePack:
    """The pack of ``code``.

    Raises:
        UnsupportedLanguage: (field ``language``) naming the languages the extractive
            engine writes and saying that an LLM endpoint writes any language.
    """
    if code not in CODES:
        from toolkit.errors import UnsupportedLanguage
        from toolkit.lang.names import LANGUAGES

        can = ", ".join(f"{c} ({LANGUAGES[c]})" for c in CODES)
        raise UnsupportedLanguage(
            f"the offline summary engine writes {can}, not {code!r}; configure an LLM "
            "endpoint (MLENS_LLM_BASE_URL) to summarise in any language",
            field="language",
            supported=list(CODES),
        )
    return _load(code)


def packs() -> tuple[LanguagePack, ...]:
    """Every pack, in ``CODES`` order."""
    return tuple(_load(code) for code in CODES)


@cache
def quotation_marks() -> dict[str, str]:
    """Every pack's quotation marks, opener → closer (``“`` → ``”``, ``«`` → ``»``).

    The engine reads a quotation's bounds by these (a quote cut inside one, a sentence
    that ends after one), never by marks of its own: a new pack's are read at once. One
    mark may open in one language and close in another (German writes „…“).
    """
    return {book.open_quote: book.close_quote for book in packs()}


def find(code: str | None) -> LanguagePack | None:
    """The pack of ``code``, or None when there is none (a language without a pack)."""
    return _load(code) if code in CODES else None


__all__ = [
    "BY_LETTERS",
    "CODES",
    "Lexicon",
    "find",
    "find_lexicon",
    "lexicon",
    "lexicon_from",
    "lexicon_of",
    "lexicons",
    "morph_analyzer",
    "pack",
    "packs",
    "quotation_marks",
    "snowball",
    "words",
]
