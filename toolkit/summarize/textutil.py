"""Small text helpers of the summary engines: content words, scripts, quotes.

Content words are lower-cased words of letters (URLs, mentions and numbers out), not
stop words, stemmed by the Snowball stemmer of their script (Cyrillic: Russian,
otherwise English), so that "release", "releases" and "released" count as one term.
"""

from __future__ import annotations

import re
from functools import cache

import Stemmer

_URL_RE = re.compile(r"(?:https?://|www\.|t\.me/)\S+|@\w+", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-][^\W\d_])*")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_CYRILLIC_RE = re.compile(r"[\u0400-\u04ff]")
_LATIN_RE = re.compile(r"[A-Za-z]")


def _wordlist(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP_WORDS_EN = _wordlist(
    """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each else even ever every few for from further get gets
    got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's however i i'd i'll i'm i've if in into is isn't it it's its itself
    just let's like may me might more most much must mustn't my myself need no nor not now of off
    oh ok okay on once one only or other ought our ours ourselves out over own really said same
    say says see shall shan't she she'd she'll she's should shouldn't so some still such than
    that that's the their theirs them themselves then there there's these they they'd they'll
    they're they've thing things think this those though through thus to too under until up
    upon us very was wasn't we we'd we'll we're we've well were weren't what what's when when's
    where where's whether which while who who's whom why why's will with won't would wouldn't
    yeah yes yet you you'd you'll you're you've your yours yourself yourselves
    also already anyway around back done going gonna got want wants know let make made maybe
    sure thanks thank please hi hello hey right good great"""
)

STOP_WORDS_RU = _wordlist(
    """а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да
    даже для до его ее её если есть еще ещё же за здесь и из или им их к как ко когда кто ли
    либо мне может мы на над надо наш не него нее неё нет ни них но ну о об однако он она они
    оно от очень по под при с со так также такой там те тем то того тоже той только том ты у
    уже хотя чего чей чем что чтобы чье чья эта эти это этот я мой моя мои твой свой себя себе
    всё всем будет будут было бы можно нужно просто вообще тут потом сейчас ведь вроде типа
    кстати спасибо привет пожалуйста да нет ок окей ага угу вот вон раз два какой какая какие
    который которая которые которое этого этой этом этим тот та тех своих свои своей между
    после перед через чтоб пока почему зачем куда откуда сам сама сами самый"""
)

STOP_WORDS = STOP_WORDS_EN | STOP_WORDS_RU


@cache
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(language)


def words(text: str) -> list[str]:
    """Lower-cased words of letters, with URLs and @mentions removed."""
    return [w.lower() for w in _WORD_RE.findall(_URL_RE.sub(" ", text))]


def content_words(text: str) -> list[tuple[str, str]]:
    """(stem, surface) of each content word: no stop words, no words under 3 letters."""
    out: list[tuple[str, str]] = []
    for word in words(text):
        if len(word) < 3 or word in STOP_WORDS:
            continue
        language = "russian" if _CYRILLIC_RE.search(word) else "english"
        out.append((_stemmer(language).stemWord(word), word))
    return out


def script(text: str) -> str | None:
    """``"cyrillic"`` or ``"latin"``: the script most of the letters are in (or ``None``)."""
    cyr, lat = len(_CYRILLIC_RE.findall(text)), len(_LATIN_RE.findall(text))
    if cyr == lat == 0:
        return None
    return "cyrillic" if cyr > lat else "latin"


def quotable(text: str, limit: int) -> str:
    """One line of message text for a quote: images as their alt text, cut at a word."""
    line = " ".join(_IMAGE_RE.sub(lambda m: m.group(1), text).split())
    if len(line) <= limit:
        return line
    cut = line[:limit]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-–—") + "…"
