"""Content words of the extractive engine.

Content words come from the toolkit's one text pipeline (``toolkit.text``: normalised,
tokenised, stop words out, Snowball-stemmed by script), minus every pack's filler
words (chat small talk, time words and generic nouns that are no topic) and words
under 3 letters, and keep their surface form so that a title shows "releases", not
"releas".
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.summarize.lang import packs
from toolkit.summarize.lang.script import script
from toolkit.text import STOP_WORDS, stem, tokenize


@lru_cache(maxsize=1)
def _stop_stems() -> frozenset[str]:
    # Inflected forms count too: "которую" and "которой" go with "который".
    words = STOP_WORDS.union(*(p.filler_words for p in packs()))
    return frozenset(stem(w) for w in words)


def words(text: str) -> list[str]:
    """The normalised word tokens of ``text`` (``toolkit.text.tokenize``)."""
    return tokenize(text)


_LAUGHTER = re.compile(r"x+d+|lo+l+z?|lmf?ao+|rofl|(?:ha){2,}h?|(?:he){2,}h?|(?:ха|ах){2,}х?")
"""Laughter as written in chats ("XD", "LOL", "hahah", "ахаха"): never a topic, even in
capitals (which would otherwise make it an acronym). Letters, not words: any language."""


@lru_cache(maxsize=65536)
def is_content_token(word: str) -> bool:
    """Whether one word (as written) is a content word: no stop word, filler, laughter or
    digits."""
    token = word.casefold().replace("ё", "е").replace("’", "").replace("'", "")
    if _LAUGHTER.fullmatch(token):
        return False
    if token.isupper() or (len(word) >= 2 and word.isupper()):
        return True  # an acronym ("США", "CI") is content however short
    return len(token) >= 3 and not token.isdigit() and stem(token) not in _stop_stems()


@lru_cache(maxsize=1)
def _not_topic_stems() -> frozenset[str]:
    return frozenset(stem(w) for p in packs() for w in p.not_topics)


def is_topic_token(word: str) -> bool:
    """Whether one word can be part of a topic phrase: a content word that no pack calls
    a non-topic ("mean" in "I mean")."""
    return is_content_token(word) and stem(word.casefold()) not in _not_topic_stems()


def content_words(text: str) -> list[tuple[str, str]]:
    """(stem, surface) of each content word, in order: no stop words, filler or digits."""
    stops = _stop_stems()
    return [
        (stem(token), token)
        for token in tokenize(text)
        if len(token) >= 3 and not token.isdigit() and stem(token) not in stops
    ]


__all__ = ["content_words", "is_content_token", "is_topic_token", "script", "words"]
