"""Small text helpers of the summary engines: content words, scripts, quotes.

Content words come from the toolkit's one text pipeline (``toolkit.text``: normalised,
tokenised, stop words out, Snowball-stemmed by script), minus chat filler that is no
topic ("thanks", "yeah", "привет") and words under 3 letters, and keep their surface
form so that a title shows "releases", not "releas".
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from toolkit.text import STOP_WORDS, URL_RE, stem, tokenize

_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
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
    являются хаха ахах хорошо плохо лучше"""
)
"""Words of chat small talk (and of time) that never make a topic title."""

# Inflected forms count too: "которую" and "которой" go with "который".
_STOP_STEMS = frozenset(stem(w) for w in STOP_WORDS | CHAT_FILLER)


def words(text: str) -> list[str]:
    """The normalised word tokens of ``text`` (``toolkit.text.tokenize``)."""
    return tokenize(text)


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


def host(url: str) -> str:
    """The host name of a URL (``https://docs.example.com/x`` -> ``docs.example.com``)."""
    try:
        return urlsplit(url if "://" in url else f"https://{url}").hostname or ""
    except ValueError:
        return ""


def without_links(text: str) -> str:
    """Text with images as their alt text and every URL as its bare host name.

    Summaries carry only links built in code; a quoted message still shows where its
    links pointed, but nothing in the quote is clickable.
    """
    text = _IMAGE_RE.sub(lambda m: m.group(1), text)
    text = _MD_LINK_RE.sub(lambda m: f"{m.group(1)} ({host(m.group(2))})", text)
    return URL_RE.sub(lambda m: host(m.group(0)), text)


def quotable(text: str, limit: int) -> str:
    """One line of message text for a quote: no links (see ``without_links``), cut at a word."""
    line = " ".join(without_links(text).split())
    if len(line) <= limit:
        return line
    cut = line[:limit]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-–—") + "…"
