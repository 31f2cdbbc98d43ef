"""Ukrainian as the toolkit reads it: Cyrillic letters with і, ї, є, ґ, stop words, and
pymorphy3's Ukrainian dictionary for stems (Snowball has no Ukrainian; the Russian one
cuts Ukrainian endings wrong: "роботі" stays "роботі", "зустрічі" is not "зустріч")."""

from __future__ import annotations

from functools import lru_cache

from toolkit.lang.lexicon import morph_analyzer, words

CODE = "uk"
LETTERS = r"[а-яіїєґ]"
SCRIPT = "cyrillic"
STEMMER = "pymorphy3"


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """The dictionary form of one normalised Ukrainian token ("зустрічі" → "зустріч")."""
    return str(morph_analyzer(CODE).parse(token)[0].normal_form)


STOP_WORDS = words(
    """а або але би б був була були було бути в вам вас весь від для до його її їй йому
    якщо є ще же за тут і із з чи їм їх к як коли хто ли між мене мені мною ми на над
    треба не нього неї ній ним ні них но ну о об однак він вона вони воно по під після
    при про с со так також такий там ті тим то того тоді теж тій тільки том той ту ти у
    вже хоча чого чий чим що щоб це ці цього цієї цьому цей цю я адже потім собі себе
    зараз багато може можна мій моя моє мої наш наша наше наші ваш ваша ваше ваші свій
    своя своє свої сам сама саме самі у в ой ага угу"""
)
"""Ukrainian stop words (pronouns, prepositions, conjunctions, particles)."""


def to_latin(token: str) -> str:
    """``token`` in Latin letters, by cyrtranslit's Ukrainian table («аллен» → "allen")."""
    import cyrtranslit

    return str(cyrtranslit.to_latin(token, "ua"))
