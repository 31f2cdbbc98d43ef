"""Russian: templates (``templates``), cue and chatter words (``words``), and grammar by
pymorphy3 (numbers agree with their nouns, key phrases in the nominative). Russian
messages are quoted, not retold: there is no reported speech for Russian yet."""

from __future__ import annotations

from toolkit.lang import morph
from toolkit.lang.base import grouped, pack_from
from toolkit.lang.ru import words
from toolkit.lang.ru.templates import TEMPLATES


def _number(n: int) -> str:
    """``2550``, ``12 431``: digits grouped by a no-break space from five digits on."""
    return grouped(n, "\u00a0", from_digits=5)


def _count(n: int, noun: str, case: str = "nomn") -> str:
    """``5 сообщений``, ``21 участник``; in the genitive ``от 21 участника``."""
    if case == "nomn":
        parse = morph.analyzer("ru").parse(noun)[0]
        agreed = parse.make_agree_with_number(n)
        return f"{_number(n)} {agreed.word if agreed is not None else noun}"
    number = "sing" if n % 10 == 1 and n % 100 != 11 else "plur"
    return f"{_number(n)} {morph.inflect('ru', noun, frozenset({case, number}))}"


PACK = pack_from(
    words,
    templates=TEMPLATES,
    count=_count,
    number=_number,
    **morph.pack_grammar("ru"),
)
