"""Ukrainian: templates (``templates``), cue and chatter words (``words``), and grammar by
pymorphy3 with ``pymorphy3-dicts-uk`` (numbers agree with their nouns, key phrases in the
nominative). Ukrainian messages are quoted, not retold."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.summarize.lang import morph
from toolkit.summarize.lang.base import LanguagePack, cues
from toolkit.summarize.lang.script import to_cyrillic
from toolkit.summarize.lang.uk import words
from toolkit.summarize.lang.uk.templates import TEMPLATES


def _count(n: int, noun: str, case: str = "nomn") -> str:
    """``1 учасник``, ``2 учасники``, ``5 учасників``; in the genitive ``від 2 учасників``."""
    last, tens = n % 10, n % 100
    if case == "nomn":
        if last == 1 and tens != 11:
            grammemes = {"nomn", "sing"}
        elif 2 <= last <= 4 and not 12 <= tens <= 14:
            grammemes = {"nomn", "plur"}
        else:
            grammemes = {"gent", "plur"}
    else:
        grammemes = {case, "sing" if last == 1 and tens != 11 else "plur"}
    return f"{n} {morph.inflect('uk', noun, frozenset(grammemes))}"


def _phrase(words_: Sequence[str], keep_case: Sequence[bool]) -> str:
    return morph.phrase_form("uk", words_, keep_case)


def _role(word: str) -> str:
    return morph.role("uk", word)


def _name(name: str) -> str:
    # Ukrainian writes the sounds of "y", "i" and "e" with its own letters.
    return to_cyrillic(name, "ru").translate(str.maketrans("иыэИЫЭ", "іиеІИЕ"))


PACK = LanguagePack(
    code="uk",
    script="cyrillic",
    open_quote="«",
    close_quote="»",
    and_word="і",
    months=words.MONTHS,
    templates=TEMPLATES,
    nouns={
        "message": "повідомлення",
        "participant": "учасник",
        "post": "допис",
        "conversation": "розмова",
        "other": "учасник",
        "topic": "тема",
    },
    count=_count,
    cue=cues(
        proposal=words.PROPOSAL,
        decision=words.DECISION,
        agreement=words.AGREEMENT,
        refusal=words.REFUSAL,
        plan=words.PLAN,
        farewell=words.FAREWELL,
        when=words.WHEN,
    ),
    chatter_words=words.CHATTER_WORDS,
    filler_words=words.FILLER_WORDS,
    abbreviations=words.ABBREVIATIONS,
    period_patterns=words.PERIOD_PATTERNS,
    transliterate=_name,
    phrase_form=_phrase,
    noun_role=_role,
)
