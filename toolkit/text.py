"""Text normalisation, tokenising, stop words and stemming, each language's by its lexicon.

One pipeline serves search (lexical coverage, phrase match, the short-message factor),
the BM25 baseline and the evaluation, so that "a term" means the same thing everywhere:

1. ``normalise``: Unicode NFKC, case folding, each lexicon's letter folds (Russian
   ``ё`` is read as ``е``); URLs are reduced to the
   words of their host (``https://github.com/a/b`` → ``github``: people search by a
   site's name, while paths and query strings are noise); @mentions are dropped
   (addressing, not content); a hashtag keeps its word; emoji, symbols and punctuation
   become spaces; apostrophes inside words are removed (``don't`` → ``dont``).
2. ``tokenize``: runs of letters and digits (``_`` and ``-`` separate words).
3. ``terms``: stop words out, then each token stemmed by the lexicon that reads it
   (``toolkit.lang.lexicon_of``): the text's language's when it is given (the summary
   engine knows each message's) and the token has its letters, else by its letters
   (Cyrillic → Russian Snowball, Latin → English Snowball, anything else as it is), so
   a message that mixes languages is stemmed correctly word by word. Search gives no
   language: it does not know a message's.

The words themselves are in ``toolkit.lang.<code>``; this module holds none.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from toolkit.lang import BY_LETTERS, Lexicon, find_lexicon, lexicon, lexicon_of, lexicons

_URL_CHAR = r"[^\s<>\"'`()\[\]{}«»“”‘’]"
_URL_BODY = rf"(?:{_URL_CHAR}|\({_URL_CHAR}*\))+(?<![.,;:!?])"
_BARE_TLDS = "com|org|net|io|ru|me|dev|ai|app|info|co|uk|de|su|рф"
URL_RE = re.compile(
    rf"(?:(?:https?|ftp)://|www\.){_URL_BODY}"
    rf"|\b(?:[a-z0-9-]+\.)+(?:[a-z]{{2,}}(?=/)|(?:{_BARE_TLDS})\b)(?:/{_URL_BODY}|/)?",
    re.IGNORECASE,
)
"""The one URL pattern of the project (search, summaries, the app).

A URL has a scheme or ``www.``, or is a bare ``host.tld/path`` (any TLD) or a bare host
of a common TLD. It runs to white space or a bracket or quote that is not its own: a
pair of parentheses inside stays (``…/Foo_(bar)``); trailing sentence punctuation and a
closing bracket around it are not part of it.
"""


def links(text: str) -> list[str]:
    """The URLs of ``text`` (``URL_RE``), without an e-mail address's domain
    ("anna@example.com" links nowhere)."""
    return [m.group() for m in URL_RE.finditer(text) if text[max(0, m.start() - 1)] != "@"]


WORD_RE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
"""A word as it is written: letters, joined by an apostrophe or a hyphen inside it
(``don't``, ``well-known``); no digits. (``tokenize`` splits those: a search term.)"""
_MENTION_RE = re.compile(r"(?<![\w@])@\w+")
_APOSTROPHE_RE = re.compile(r"(?<=\w)['’ʼ`](?=\w)")
_SYMBOLS_RE = re.compile(r"[\W_]+")
# URL host labels that say nothing about the site.
_HOST_NOISE = frozenset(
    {"www", "m", "t", "mobile", "com", "org", "net", "io", "ru", "me", "co", "uk"}
)

STOP_WORDS_EN: frozenset[str] = lexicon("en").stop_words
"""English stop words (``toolkit.lang.en.lexicon``)."""
STOP_WORDS_RU: frozenset[str] = lexicon("ru").stop_words
"""Russian stop words (``toolkit.lang.ru.lexicon``)."""
STOP_WORDS: frozenset[str] = frozenset().union(*(lexicon(c).stop_words for c in BY_LETTERS))
"""The stop words of a text of no known language: those of the languages read by letters."""
_FOLDS = str.maketrans({a: b for lex in lexicons() for a, b in lex.folds.items()})


def _host_words(match: re.Match[str]) -> str:
    url = match.group(0)
    rest = url.split("://", 1)[-1]
    host = re.split(r"[/?#:]", rest, maxsplit=1)[0]
    labels = [label for label in host.split(".")[:-1] if label and label not in _HOST_NOISE]
    return " " + " ".join(labels) + " "


def normalise(text: str) -> str:
    """Fold a text to the form every comparison uses (see the module docstring).

    Args:
        text: any message or query.

    Returns:
        Lower-case text of words separated by single spaces.
    """
    text = fold(unicodedata.normalize("NFKC", text).casefold())
    text = URL_RE.sub(_host_words, text)
    text = _MENTION_RE.sub(" ", text)
    text = _APOSTROPHE_RE.sub("", text)
    # Emoji, pictographs, punctuation and "_" are not words: only letters and digits stay.
    return " ".join(_SYMBOLS_RE.sub(" ", text).split())


def tokenize(text: str) -> list[str]:
    """Normalise ``text`` and split it into word tokens (stop words kept, not stemmed)."""
    return normalise(text).split()


def fold(text: str) -> str:
    """``text`` with each lexicon's letter folds (``ё`` → ``е``); case is kept."""
    return text.translate(_FOLDS)


def script_of(token: str) -> str | None:
    """The stemmer of a token of no known language: ``"russian"``, ``"english"`` or
    ``None``.

    A token with any Cyrillic letter is read as Russian; else one with a Latin letter as
    English; digits and other scripts are left unstemmed.
    """
    found = lexicon_of(token)
    return found.stemmer if found is not None else None


@lru_cache(maxsize=200_000)
def stem(token: str, language: str | None = None) -> str:
    """The stem of one normalised token, by the lexicon that reads it (cached).

    Args:
        token: a token of ``tokenize``.
        language: the ISO 639-1 code of the text it is from, when known: its lexicon
            stems the token if the token has its letters (``toolkit.lang.lexicon_of``).
    """
    found = lexicon_of(token, language)
    return token if found is None else found.stem(token)


@lru_cache(maxsize=16)
def stop_words(language: str | None = None) -> frozenset[str]:
    """The stop words of a text in ``language``: ``STOP_WORDS`` (those of the languages
    read by letters) and the language's own."""
    own: Lexicon | None = find_lexicon(language)
    return STOP_WORDS if own is None else STOP_WORDS | own.stop_words


def terms(text: str, *, keep_stop_words: bool = False, language: str | None = None) -> list[str]:
    """The content terms of a text, in order: normalised, stop words out, stemmed.

    Args:
        text: a message or a query.
        keep_stop_words: keep stop words too (for callers that want every word).
        language: the text's ISO 639-1 code, when known (see ``stem``, ``stop_words``).

    Returns:
        Stems in the order they occur (repeats kept).
    """
    stops = frozenset() if keep_stop_words else stop_words(language)
    return [stem(t, language) for t in tokenize(text) if t not in stops]


__all__ = [
    "STOP_WORDS",
    "STOP_WORDS_EN",
    "STOP_WORDS_RU",
    "URL_RE",
    "fold",
    "links",
    "normalise",
    "script_of",
    "stem",
    "stop_words",
    "terms",
    "tokenize",
]
