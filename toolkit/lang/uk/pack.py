"""Ukrainian: templates (``templates``), cue and chatter words (``words``), and grammar by
pymorphy3 with ``pymorphy3-dicts-uk`` (numbers agree with their nouns, key phrases in the
nominative). Ukrainian messages are quoted, not retold."""

from __future__ import annotations

from toolkit.lang import morph
from toolkit.lang.base import grouped, pack_from
from toolkit.lang.uk import words
from toolkit.lang.uk.templates import TEMPLATES


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
    return f"{_number(n)} {morph.inflect('uk', noun, frozenset(grammemes))}"


def _number(n: int) -> str:
    """``2550``, ``12 431``: digits grouped by a no-break space from five digits on."""
    return grouped(n, "\u00a0", from_digits=5)


PACK = pack_from(
    words,
    templates=TEMPLATES,
    count=_count,
    number=_number,
    **morph.pack_grammar("uk"),
)
