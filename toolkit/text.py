"""Text normalisation, tokenising, stop words and Snowball stemming (Russian and English).

One pipeline serves search (lexical coverage, phrase match, the short-message factor),
the BM25 baseline and the evaluation, so that "a term" means the same thing everywhere:

1. ``normalise``: Unicode NFKC, case folding, ``ё``→``е``; URLs are reduced to the
   words of their host (``https://github.com/a/b`` → ``github``: people search by a
   site's name, while paths and query strings are noise); @mentions are dropped
   (addressing, not content); a hashtag keeps its word; emoji, symbols and punctuation
   become spaces; apostrophes inside words are removed (``don't`` → ``dont``).
2. ``tokenize``: runs of letters and digits (``_`` and ``-`` separate words).
3. ``terms``: stop words out, then each token stemmed by its own script (Cyrillic →
   Russian Snowball, Latin → English Snowball, anything else as it is), so a message
   that mixes languages is stemmed correctly word by word.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

import Stemmer

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
_MENTION_RE = re.compile(r"(?<![\w@])@\w+")
_APOSTROPHE_RE = re.compile(r"(?<=\w)['’ʼ`](?=\w)")
_SYMBOLS_RE = re.compile(r"[\W_]+")
_CYRILLIC_RE = re.compile(r"[а-я]")
_LATIN_RE = re.compile(r"[a-z]")
# URL host labels that say nothing about the site.
_HOST_NOISE = frozenset(
    {"www", "m", "t", "mobile", "com", "org", "net", "io", "ru", "me", "co", "uk"}
)

STOP_WORDS_EN: frozenset[str] = frozenset(
    """a about above after again against all am an and any are aren arent as at be because
    been before being below between both but by can cant could couldnt did didnt do does
    doesnt doing dont down during each few for from further had hadnt has hasnt have havent
    having he hed hell hes her here heres hers herself him himself his how hows i id ill im
    ive if in into is isnt it its itself lets me more most mustnt my myself no nor not of off
    on once only or other ought our ours ourselves out over own same shant she shed shell
    shes should shouldnt so some such than that thats the their theirs them themselves then
    there theres these they theyd theyll theyre theyve this those through to too under until
    up very was wasnt we wed well were weve werent what whats when whens where wheres which
    while who whos whom why whys with wont would wouldnt you youd youll youre youve your yours
    yourself yourselves also just will shall may might must yes ok okay oh via""".split()  # noqa: SIM905
)
"""English stop words (function words, contractions without apostrophes)."""

STOP_WORDS_RU: frozenset[str] = frozenset(
    """а без более бы был была были было быть в вам вас весь во вот все всего всей всем всех
    всю вы где да даже для до его ее ей ему если есть еще же за здесь и из или им их к как
    ко когда кто ли либо между меня мне мной мы на над надо не него нее ней нем нет ни них
    но ну о об однако он она они оно от очень по под после при про с со так также такой там
    те тем то того тогда тоже той только том тот ту ты у уже хотя чего чей чем что чтобы чье
    чья эта эти это этого этой этом этот эту я ведь вдруг опять потом себе себя сейчас разве
    будто впрочем зачем куда между много может можно мой моя мое мои наш наша наше наши ваш
    ваша ваше ваши свой своя свое свои сам сама само сами бы ага угу""".split()  # noqa: SIM905
)
"""Russian stop words (pronouns, prepositions, conjunctions, particles; ``ё`` as ``е``)."""

STOP_WORDS: frozenset[str] = STOP_WORDS_EN | STOP_WORDS_RU
"""Every stop word the pipeline removes."""

_stemmers = threading.local()


def _stemmer(language: str) -> Stemmer.Stemmer:
    # PyStemmer objects are not thread-safe: one per thread and language.
    cache: dict[str, Stemmer.Stemmer] | None = getattr(_stemmers, "cache", None)
    if cache is None:
        cache = _stemmers.cache = {}
    if language not in cache:
        cache[language] = Stemmer.Stemmer(language)
    return cache[language]


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
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    text = URL_RE.sub(_host_words, text)
    text = _MENTION_RE.sub(" ", text)
    text = _APOSTROPHE_RE.sub("", text)
    # Emoji, pictographs, punctuation and "_" are not words: only letters and digits stay.
    return " ".join(_SYMBOLS_RE.sub(" ", text).split())


def tokenize(text: str) -> list[str]:
    """Normalise ``text`` and split it into word tokens (stop words kept, not stemmed)."""
    return normalise(text).split()


def script_of(token: str) -> str | None:
    """The Snowball language for a token: ``"russian"``, ``"english"`` or ``None``.

    A token with any Cyrillic letter is Russian; else one with a Latin letter is English;
    digits and other scripts are left unstemmed.
    """
    if _CYRILLIC_RE.search(token):
        return "russian"
    if _LATIN_RE.search(token):
        return "english"
    return None


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """The Snowball stem of one normalised token, by its script (cached)."""
    language = script_of(token)
    if language is None:
        return token
    return str(_stemmer(language).stemWord(token))


def terms(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """The content terms of a text, in order: normalised, stop words out, stemmed.

    Args:
        text: a message or a query.
        keep_stop_words: keep stop words too (for callers that want every word).

    Returns:
        Stems in the order they occur (repeats kept).
    """
    return [stem(t) for t in tokenize(text) if keep_stop_words or t not in STOP_WORDS]


__all__ = [
    "STOP_WORDS",
    "STOP_WORDS_EN",
    "STOP_WORDS_RU",
    "URL_RE",
    "normalise",
    "script_of",
    "stem",
    "terms",
    "tokenize",
]
