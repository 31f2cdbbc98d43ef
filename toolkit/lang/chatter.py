"""Chatter in any language a pack knows: greetings, thanks, leave-takings, backchannels.

A message is chatter when, once its leave-taking formulas are removed, every word is a
chatter word of some pack ("ok", "lol", "+1", "спасибо", "дякую", "Take care!"). Each
pack holds its own words; this module only asks all of them, because "ok" is chatter
in a Russian chat too.
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolkit.lang import packs
from toolkit.text import URL_RE, tokenize

_PLACEHOLDER_RE = re.compile(r"^(?:\s*(?:<[\w .:-]{1,40}>|\[[\w .:-]{1,40}\]))+\s*$")


@lru_cache(maxsize=1)
def chatter_words() -> frozenset[str]:
    """Every pack's chatter words."""
    return frozenset().union(*(p.chatter_words for p in packs()))


@lru_cache(maxsize=1)
def _laughter() -> re.Pattern[str]:
    """Every pack's laughter ("hahaha", «ахаха»), matched against a whole token."""
    return re.compile("|".join(f"(?:{p.laughter.pattern})" for p in packs()), re.IGNORECASE)


def _chatter_token(token: str) -> bool:
    return token in chatter_words() or _laughter().fullmatch(token) is not None


@lru_cache(maxsize=1)
def _farewell() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p.cue.farewell.pattern})" for p in packs()), re.IGNORECASE)


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is only markup standing for an attachment ("<photo>",
    "[video]", "<Media omitted>"): a message without words of its own."""
    return bool(_PLACEHOLDER_RE.match(text))


_VOCATIVE_RE = re.compile(r"(?<=[^\W\d_]),\s+[^\W\d_][^\W\d_'’-]*(?=\s*(?:[,.!?…]|$))")
"""A name set off by a comma after a word ("Hello, John.", "Oh, Peter, how are you?"):
who is greeted, not what is said; capitalised (checked in ``_without_vocatives``)."""


@lru_cache(maxsize=1)
def _filler_words() -> frozenset[str]:
    return frozenset().union(*(p.filler_words for p in packs()))


def _without_vocatives(text: str) -> str:
    def drop(match: re.Match[str]) -> str:
        word = match.group().lstrip(", \t\n")
        # "Ok, Monday." answers when: a day, a time or a filler word is never a name.
        named = word[:1].isupper() and not word.isupper() and word.lower() not in _filler_words()
        return "," if named else match.group()

    return _VOCATIVE_RE.sub(drop, text)


def is_chatter(text: str) -> bool:
    """Whether ``text`` is a greeting, thanks, a leave-taking, a backchannel, laughter or
    a bare reaction ("+++ hahaha"), also when it greets someone by name ("Hello, John.")."""
    words = _farewell().sub(" ", URL_RE.sub(" link ", text))
    if all(_chatter_token(t) for t in tokenize(words) if not t.isdigit()):
        return True
    bare = _without_vocatives(words)
    return bare != words and all(_chatter_token(t) for t in tokenize(bare) if not t.isdigit())


_ADDRESS_RE = re.compile(r"(?:^|(?<=[.!?…\n]))(\s*)[^\W\d_][\w'’-]*\s*[,!](?=\s)")
"""A lone word that opens a sentence and is set off by a comma or "!": whom a message
calls ("Friends, …", "Guys!"), never what it is about."""


def without_chatter(text: str) -> str:
    """``text`` without what is said to people rather than about something: its
    sentences that are chatter (a greeting, thanks, a leave-taking), its leave-taking
    formulas, and a lone word that opens a sentence to call someone."""
    from toolkit.lang.sentences import split_sentences

    kept = [s for s in split_sentences(text) if not is_chatter(s)]
    return _ADDRESS_RE.sub(r"\1. ", _farewell().sub(" . ", "".join(kept)))
