"""English: templates, cue words, reported speech (``reported`` and its helpers).

Reported speech retells an English message in the third person ("Amanda baked cookies
and asks whether Jerry wants some"): ``reported``, ``indirect``, ``agreement``,
``cleanup``, ``ellipsis`` and ``shapes``; ``words`` holds the word lists and patterns.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from toolkit.lang.base import grouped, pack_from
from toolkit.lang.en import words
from toolkit.lang.en.templates import TEMPLATES


def _count(n: int, noun: str, case: str = "nomn") -> str:
    one, many = noun.split("|")
    return f"{_number(n)} {one if n == 1 else many}"


def _number(n: int) -> str:
    """``12,431``: digits grouped by commas from four digits on."""
    return grouped(n, ",")


def _retell(text: str, speaker: str, addressee: str | None, names: tuple[str, ...]) -> str | None:
    """The message in reported speech; ``""`` when it is only chatter; None when retelling
    would change its meaning (an exclamation: "You're kidding!", "What a game!") or lose
    a mark in brackets (``[phone]`` stands for a number: it is quoted as it is)."""
    from toolkit.lang.en.reported import report
    from toolkit.lang.en.shapes import exclaims

    if exclaims(text) or "[" in text:
        return None
    return report(text, speaker, addressee, names)


@lru_cache(maxsize=65536)
def _role(word: str) -> str:
    """``noun``, ``adj``, ``guess`` or ``other`` (lemminflect's readings of the word; a word
    it does not know is a noun, a name or a term, or in lower case a ``guess``; a person's
    first name is ``other``)."""
    import lemminflect  # type: ignore[import-untyped]

    if word.isupper() and len(word) >= 2:
        return "noun"
    lower = word.lower()
    lemmas = lemminflect.getAllLemmas(lower)
    verb = lemmas.get("VERB", ())
    if lower.endswith("ing") and verb and lower not in verb:
        # A verb's -ing form ("taking", "trying"): as a title it reads as a bare verb,
        # and a phrase that opens with it is a clause ("taking care"), not a topic.
        return "other"
    if not lemmas and lower == word:
        return "guess"  # unknown in lower case: slang or a typo, a topic only if it recurs
    if not lemmas and _first_name(word):
        return "other"  # a person's first name ("Casey") is who, never what about
    if not lemmas or "NOUN" in lemmas or "PROPN" in lemmas:
        return "noun"  # a name or a term the dictionary does not know is a noun
    return "adj" if "ADJ" in lemmas else "other"


@lru_cache(maxsize=1)
def _names() -> Any:
    import gender_guesser.detector  # type: ignore[import-untyped]

    return gender_guesser.detector.Detector(case_sensitive=False)


def _first_name(word: str) -> bool:
    """Whether a capitalised word the dictionary lacks is a person's first name
    (gender-guesser's list of first names, many countries)."""
    return word[:1].isupper() and _names().get_gender(word) != "unknown"


@lru_cache(maxsize=65536)
def _singular(word: str) -> str:
    import lemminflect

    lemmas = lemminflect.getAllLemmas(word.lower()).get("NOUN")
    return str(lemmas[0]) if lemmas else word


def _warm() -> None:
    """Load lemminflect's lemma and inflection tables (seconds, once per process)."""
    import lemminflect

    lemminflect.getAllLemmas("x")
    lemminflect.getAllInflections("x")
    _names()


def _phrase(shown: Sequence[str], keep_case: Sequence[bool]) -> str:
    """The phrase with its head (last) noun in the singular, unless it keeps its case."""
    words_ = list(shown)
    if not keep_case[-1]:
        words_[-1] = _singular(words_[-1])
    return " ".join(words_)


PACK = pack_from(
    words,
    templates=TEMPLATES,
    count=_count,
    number=_number,
    retell=_retell,
    phrase_form=_phrase,
    head_last=True,
    noun_role=_role,
    warm=_warm,
)
