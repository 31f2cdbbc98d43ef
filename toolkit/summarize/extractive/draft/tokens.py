"""Content words of the extractive engine.

Content words come from the toolkit's one text pipeline (``toolkit.text``: normalised,
tokenised, stop words out, stemmed by the lexicon of the message's language, or by its
letters when the language is unknown), minus every pack's filler words (chat small
talk, time words and generic nouns that are no topic), laughter and words under 3
letters, and keep their surface form so that a title shows "releases", not "releas".
A message's language (``lang.detect``) picks its stop words and stemmer: a Ukrainian
message is stemmed as Ukrainian, its English words as English.
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.lang import packs
from toolkit.lang.script import script
from toolkit.text import fold, stem, stop_words, tokenize


@lru_cache(maxsize=8)
def _stop_stems(language: str | None) -> frozenset[str]:
    # Inflected forms count too: "которую" and "которой" go with "который".
    words = stop_words(language).union(*(p.filler_words for p in packs()))
    return frozenset(stem(w, language) for w in words)


@lru_cache(maxsize=1)
def _laughter() -> re.Pattern[str]:
    """Laughter as any pack's chats write it ("XD", "LOL", "ахаха"): a laughing token of
    one language is laughter in a message of another too."""
    return re.compile("|".join(f"(?:{p.laughter.pattern})" for p in packs()))


def words(text: str) -> list[str]:
    """The normalised word tokens of ``text`` (``toolkit.text.tokenize``)."""
    return tokenize(text)


@lru_cache(maxsize=65536)
def is_content_token(word: str, language: str | None = None) -> bool:
    """Whether one word (as written) is a content word: no stop word, filler, laughter or
    digits (``language``: the ISO 639-1 code of its message, when known)."""
    token = fold(word.casefold()).replace("’", "").replace("'", "")
    if _laughter().fullmatch(token):
        return False  # never a topic, even in capitals (which would make it an acronym)
    if token.isupper() or (len(word) >= 2 and word.isupper()):
        return True  # an acronym ("США", "CI") is content however short
    return (
        len(token) >= 3
        and not token.isdigit()
        and stem(token, language) not in _stop_stems(language)
    )


@lru_cache(maxsize=8)
def _not_topic_stems(language: str | None) -> frozenset[str]:
    return frozenset(stem(w, language) for p in packs() for w in p.not_topics)


def is_topic_token(word: str, language: str | None = None) -> bool:
    """Whether one word can be part of a topic phrase: a content word that no pack calls
    a non-topic ("mean" in "I mean")."""
    return is_content_token(word, language) and stem(
        word.casefold(), language
    ) not in _not_topic_stems(language)


def content_words(text: str, language: str | None = None) -> list[tuple[str, str]]:
    """(stem, surface) of each content word, in order: no stop words, filler or digits
    (``language``: the text's ISO 639-1 code, when known)."""
    stops = _stop_stems(language)
    out = []
    for token in tokenize(text):
        if len(token) < 3 or token.isdigit():
            continue
        stemmed = stem(token, language)
        if stemmed not in stops:
            out.append((stemmed, token))
    return out


__all__ = ["content_words", "is_content_token", "is_topic_token", "script", "words"]
