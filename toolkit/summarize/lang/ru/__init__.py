"""Russian: templates (``templates``), cue and chatter words (``words``), and grammar by
pymorphy3 (numbers agree with their nouns, key phrases in the nominative). Russian
messages are quoted, not retold: there is no reported speech for Russian yet."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.summarize.lang import morph
from toolkit.summarize.lang.base import LanguagePack, cues
from toolkit.summarize.lang.ru import words
from toolkit.summarize.lang.ru.templates import TEMPLATES
from toolkit.summarize.lang.script import to_cyrillic


def _count(n: int, noun: str, case: str = "nomn") -> str:
    """``5 сообщений``, ``21 участник``; in the genitive ``от 21 участника``."""
    if case == "nomn":
        parse = morph.analyzer("ru").parse(noun)[0]
        agreed = parse.make_agree_with_number(n)
        return f"{n} {agreed.word if agreed is not None else noun}"
    number = "sing" if n % 10 == 1 and n % 100 != 11 else "plur"
    return f"{n} {morph.inflect('ru', noun, frozenset({case, number}))}"


def _phrase(words_: Sequence[str], keep_case: Sequence[bool]) -> str:
    return morph.phrase_form("ru", words_, keep_case)


def _role(word: str) -> str:
    return morph.role("ru", word)


def _name(name: str) -> str:
    return to_cyrillic(name, "ru")


PACK = LanguagePack(
    code="ru",
    script="cyrillic",
    open_quote="«",
    close_quote="»",
    and_word="и",
    months=words.MONTHS,
    templates=TEMPLATES,
    nouns={
        "message": "сообщение",
        "participant": "участник",
        "post": "публикация",
        "conversation": "разговор",
        "other": "участник",
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
