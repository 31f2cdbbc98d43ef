"""Content words and scripts of the extractive engine.

Content words come from the toolkit's one text pipeline (``toolkit.text``: normalised,
tokenised, stop words out, Snowball-stemmed by script), minus chat filler that is no
topic ("thanks", "yeah", "привет") and words under 3 letters, and keep their surface
form so that a title shows "releases", not "releas".
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.text import STOP_WORDS, stem, tokenize

_CYRILLIC_RE = re.compile(r"[\u0400-\u04ff]")
_LATIN_RE = re.compile(r"[A-Za-z]")


def _wordlist(text: str) -> frozenset[str]:
    return frozenset(text.split())


CHAT_FILLER = _wordlist(
    """thanks thank thx please hi hello hey yeah yep nope sure right good great cool nice
    lol got get gets going gonna want wants know think let make made maybe really still
    already anyway back done thing things said say says see well like need one much many
    time day days week month year today tomorrow yesterday haha hahaha lol lmao omg
    спасибо привет пожалуйста ок окей да нет ага угу вообще просто типа кстати вроде
    тоже можно нужно надо будет будут было раз два какой который сказал сказала говорит
    время день неделя месяц год сегодня вчера завтра очень также еще ещё является
    являются хаха ахах хорошо плохо лучше
    kind sort lot lots bit way ways stuff person people guy guys someone something
    anything nothing everything everyone anyone somebody anybody thing things lol idea
    part kinds sorts point fact case место дело штука часть способ образ человек люди
    вещь вещи что-то кто-то"""
)
"""Words of chat small talk, of time and generic nouns ("kind", "lot", "way") that never
make a topic title."""

# Inflected forms count too: "которую" and "которой" go with "который".
_STOP_STEMS = frozenset(stem(w) for w in STOP_WORDS | CHAT_FILLER)


def words(text: str) -> list[str]:
    """The normalised word tokens of ``text`` (``toolkit.text.tokenize``)."""
    return tokenize(text)


_LAUGHTER = re.compile(r"x+d+|lo+l+z?|lmf?ao+|rofl|(?:ha){2,}h?|(?:he){2,}h?|(?:ха|ах){2,}х?")
"""Laughter as written in chats ("XD", "LOL", "LMAO", "hahah", "ахаха"): never a topic,
even in capitals (which would otherwise make it an acronym)."""


@lru_cache(maxsize=65536)
def is_content_token(word: str) -> bool:
    """Whether one word (as written) is a content word: no stop word, filler, laughter or
    digits."""
    token = word.casefold().replace("ё", "е").replace("’", "").replace("'", "")
    if _LAUGHTER.fullmatch(token):
        return False
    if token.isupper() or (len(word) >= 2 and word.isupper()):
        return True  # an acronym ("США", "CI") is content however short
    return len(token) >= 3 and not token.isdigit() and stem(token) not in _STOP_STEMS


def content_words(text: str) -> list[tuple[str, str]]:
    """(stem, surface) of each content word, in order: no stop words, filler or digits."""
    return [
        (stem(token), token)
        for token in tokenize(text)
        if len(token) >= 3 and not token.isdigit() and stem(token) not in _STOP_STEMS
    ]


def script(text: str) -> str | None:
    """``"cyrillic"`` or ``"latin"``: the script most of the letters are in (or ``None``)."""
    cyr, lat = len(_CYRILLIC_RE.findall(text)), len(_LATIN_RE.findall(text))
    if cyr == lat == 0:
        return None
    return "cyrillic" if cyr > lat else "latin"
