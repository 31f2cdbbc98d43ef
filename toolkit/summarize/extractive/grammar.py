"""Number agreement for the engine's own words: English plurals, Russian via pymorphy3.

pymorphy3 reads its dictionaries from the installed ``pymorphy3-dicts-ru`` package, so
it works offline. One analyzer per process (building it takes a fraction of a second).
"""

from __future__ import annotations

from functools import lru_cache

import pymorphy3  # type: ignore[import-untyped]


@lru_cache(maxsize=1)
def morph() -> pymorphy3.MorphAnalyzer:
    """The shared Russian analyzer."""
    return pymorphy3.MorphAnalyzer(lang="ru")


def count_en(n: int, one: str, many: str) -> str:
    """``1 message``, ``5 messages``."""
    return f"{n} {one if n == 1 else many}"


@lru_cache(maxsize=4096)
def agree_ru(word: str, n: int, case: str = "nomn") -> str:
    """A Russian noun in ``case`` agreeing with the number ``n`` ("5 участников").

    ``case`` is the case of the whole phrase: ``nomn`` ("21 участник", "2 участника"),
    ``gent`` ("от 21 участника", "от 5 участников").
    """
    parse = morph().parse(word)[0]
    if case != "nomn":
        inflected = parse.inflect({case, "plur" if n % 10 != 1 or n % 100 == 11 else "sing"})
        return inflected.word if inflected is not None else word
    agreed = parse.make_agree_with_number(n)
    return agreed.word if agreed is not None else word


def count_ru(n: int, word: str, case: str = "nomn") -> str:
    """``n`` and the noun agreeing with it: ``5 сообщений``, ``от 21 участника``."""
    return f"{n} {agree_ru(word, n, case)}"


@lru_cache(maxsize=16384)
def nominative_ru(word: str) -> str:
    """A Russian word's dictionary form (nominative singular for nouns)."""
    return str(morph().parse(word)[0].normal_form)


__all__ = ["agree_ru", "count_en", "count_ru", "morph", "nominative_ru"]
