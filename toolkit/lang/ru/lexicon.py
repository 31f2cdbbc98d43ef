"""Russian as the toolkit reads it: Cyrillic letters, ``ё`` read as ``е``, stop words,
the Snowball stemmer."""

from __future__ import annotations

from toolkit.lang.lexicon import snowball, words

CODE = "ru"
LETTERS = r"[а-я]"
SCRIPT = "cyrillic"
STEMMER = "russian"
stem = snowball(STEMMER)
FOLDS = {"ё": "е"}
"""Russian writes ``ё`` or ``е`` for the same letter; every comparison reads ``е``."""

STOP_WORDS = words(
    """а без более бы был была были было быть в вам вас весь во вот все всего всей всем всех
    всю вы где да даже для до его ее ей ему если есть еще же за здесь и из или им их к как
    ко когда кто ли либо между меня мне мной мы на над надо не него нее ней нем нет ни них
    но ну о об однако он она они оно от очень по под после при про с со так также такой там
    те тем то того тогда тоже той только том тот ту ты у уже хотя чего чей чем что чтобы чье
    чья эта эти это этого этой этом этот эту я ведь вдруг опять потом себе себя сейчас разве
    будто впрочем зачем куда между много может можно мой моя мое мои наш наша наше наши ваш
    ваша ваше ваши свой своя свое свои сам сама само сами бы ага угу"""
)
"""Russian stop words (pronouns, prepositions, conjunctions, particles; ``ё`` as ``е``)."""


def to_latin(token: str) -> str:
    """``token`` in Latin letters, by cyrtranslit's Russian table («аллен» → "allen")."""
    import cyrtranslit

    return str(cyrtranslit.to_latin(token, "ru"))
