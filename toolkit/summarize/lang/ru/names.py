"""Russian names as a text may write them: every case form of a name word, for the
pseudonyms an LLM endpoint is sent (``toolkit.summarize.llm.pseudonyms``).

A chat writes «Борису» for the member who signs «Борис»: each of these forms must be
replaced by that member's placeholder. The forms are pymorphy3's (its dictionary, and
its predictor for a surname it does not know), as the pack's grammar is
(``toolkit.summarize.lang.morph``).
"""

from __future__ import annotations

from toolkit.summarize.lang import morph

CODE = "ru"


def forms(word: str) -> frozenset[str]:
    """Every case form of the name word ``word`` (lower case, itself among them)."""
    return morph.name_forms(CODE, word)


def lemma(word: str) -> str | None:
    """The dictionary form of a word that reads first as a name, else ``None``."""
    return morph.name_lemma(CODE, word)


def everyday(word: str) -> bool:
    """Whether ``word`` is, first of all, an everyday word (left alone in lower case)."""
    return morph.everyday_word(CODE, word)
