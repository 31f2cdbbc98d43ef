"""Language packs of the extractive engine, one package per language (as spaCy's ``lang``).

``pack(code)`` gives a language's ``LanguagePack`` (``base``); ``CODES`` are the
languages the offline engine writes (``en``, ``ru``, ``uk``); a new language is a new
package here and its code in ``CODES``. ``quotation_marks`` are every pack's, which the
engine reads a quotation's bounds by. ``detect`` tells each message's language;
``script`` which letters a text is in and how a name is written in another script;
``morph`` wraps pymorphy3 for the Slavic packs. Packs load on first use.
"""

from __future__ import annotations

import importlib
from functools import cache

from toolkit.errors import UnsupportedLanguage
from toolkit.summarize.lang.base import LanguagePack

CODES: tuple[str, ...] = ("en", "ru", "uk")
"""The languages the extractive engine writes, each a package of this one."""


@cache
def _load(code: str) -> LanguagePack:
    module = importlib.import_module(f"toolkit.summarize.lang.{code}")
    found: LanguagePack = module.PACK
    return found


def pack(code: str) -> LanguagePack:
    """The pack of ``code``.

    Raises:
        UnsupportedLanguage: (field ``language``) naming the languages the extractive
            engine writes and saying that an LLM endpoint writes any language.
    """
    if code not in CODES:
        from toolkit.summarize.languages import LANGUAGES

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


__all__ = ["CODES", "LanguagePack", "find", "pack", "packs", "quotation_marks"]
