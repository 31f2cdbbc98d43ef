"""The spellings a name or handle hides behind, for the pseudonyms (``pseudonyms``).

Before a text is matched against the people it may name:

- ``clean``: Unicode NFKC (full-width letters, ligatures), invisible characters out
  (zero-width spaces and joiners, the word joiner, a byte-order mark, soft hyphens:
  "Ali\\u200bce" is "Alice"), and in a word that mixes Latin and Cyrillic letters the
  look-alikes of the other script written in the word's own ("Аlice" with a Cyrillic
  А is "Alice"; «Бoрис» with a Latin o is «Борис»);
- ``fold``: a word's matching form: case, ``ё``, apostrophes and diacritics folded
  ("Zoë Brontë" and "Zoe Bronte" are one name; «й» stays as both sides fold alike);
- ``across``: a capitalised word's key across scripts (``meaning._key``: "Dmitry",
  "Dmitrij" and «Дмитрий» share one), so that a member signed in Cyrillic is found
  written in Latin letters and the other way round;
- ``SOCIAL_RE``: profile links of other platforms (Instagram, TikTok, VK, Facebook, X
  and Twitter, Threads) and ``/@handle`` inside any link (YouTube, Medium, Mastodon).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from toolkit.text import fold as letter_folds

_INVISIBLE_RE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad\u034f\u180e]")
_LATIN_LOOKS = "aAeEoOpPcCyxXkKmMTHBiIjsSëË"
_CYRILLIC_LOOKS = "аАеЕоОрРсСухХкКмМТНВіІјѕЅёЁ"
_LATIN_TO_CYRILLIC = str.maketrans(_LATIN_LOOKS, _CYRILLIC_LOOKS)
_CYRILLIC_TO_LATIN = str.maketrans(_CYRILLIC_LOOKS, _LATIN_LOOKS)
_WORD_RE = re.compile(r"[^\W\d_]+")
_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "ø": "o", "đ": "d", "ð": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ŀ": "l"}
    | {"æ": "ae", "œ": "oe", "þ": "th"}
)
"""Latin letters that Unicode does not take apart into a letter and a mark ("Łukasz" is
written "Lukasz" without its stroke)."""


def _cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _one_script(match: re.Match[str]) -> str:
    word = match.group(0)
    cyrillic = [ch for ch in word if _cyrillic(ch)]
    latin = [ch for ch in word if not _cyrillic(ch) and ch.isalpha()]
    if not cyrillic or not latin:
        return word
    # The letters only one script has decide ("Zоё": the Z); else the most letters.
    own_cyrillic = sum(ch not in _CYRILLIC_LOOKS for ch in cyrillic)
    own_latin = sum(ch not in _LATIN_LOOKS for ch in latin)
    if own_cyrillic != own_latin:
        to_cyrillic = own_cyrillic > own_latin
    else:
        to_cyrillic = len(cyrillic) > len(latin)
    return word.translate(_LATIN_TO_CYRILLIC if to_cyrillic else _CYRILLIC_TO_LATIN)


def clean(text: str) -> str:
    """``text`` as the pseudonyms read it (see the module docstring)."""
    if not text:
        return text
    text = _INVISIBLE_RE.sub("", unicodedata.normalize("NFKC", text))
    return _WORD_RE.sub(_one_script, text)


def fold(word: str) -> str:
    """The form a name word is looked up by: case, the lexicons' letter folds,
    apostrophes and diacritics folded."""
    word = letter_folds(word.casefold()).replace("’", "'").replace("ʼ", "'")
    word = word.translate(_UNDECOMPOSED)
    parts = unicodedata.normalize("NFD", word)
    # A letter with a breve or diaeresis of its alphabet loses it on both sides alike,
    # so it still matches itself.
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in parts if not unicodedata.combining(ch))
    )


MIN_ACROSS = 4
"""Letters a word needs to be matched across scripts (shorter keys are many words)."""


@lru_cache(maxsize=65536)
def across(word: str) -> str | None:
    """A name word's key across scripts, or ``None`` for a short one."""
    from toolkit.summarize.llm.meaning import _key

    if len(word) < MIN_ACROSS:
        return None
    key = _key(word)
    return key if len(key) >= MIN_ACROSS - 1 else None


_PLATFORMS = (
    r"instagram\.com|instagr\.am|tiktok\.com|vk\.com|vk\.ru|vkontakte\.ru|m\.vk\.com"
    r"|facebook\.com|fb\.com|m\.facebook\.com|x\.com|twitter\.com|mobile\.twitter\.com"
    r"|threads\.net|ok\.ru"
)
_REST = r"(?:[/?#][^\s<>()\"'«»]*)?"
SOCIAL_RE = re.compile(
    rf"(?:https?://)?(?:www\.)?(?:{_PLATFORMS})/@?(?P<s>[A-Za-z0-9_.]{{2,40}}){_REST}"
    rf"|(?:https?://)?(?:[\w-]+\.)+[a-z]{{2,}}/(?:[\w.-]+/)*@(?P<g>[A-Za-z0-9_.]{{2,40}}){_REST}",
    re.IGNORECASE,
)
"""A profile link: a platform's link whose first path part is an account (not one of
``NOT_ACCOUNTS``), or a link with ``/@handle`` in its path."""
NOT_ACCOUNTS = frozenset(
    [
        "p",
        "reel",
        "reels",
        "explore",
        "tv",
        "stories",
        "hashtag",
        "tags",
        "tag",
        "search",
        "home",
        "i",
        "intent",
        "share",
        "sharer",
        "watch",
        "groups",
        "events",
        "pages",
        "photo",
        "photos",
        "video",
        "videos",
        "login",
        "signup",
        "settings",
        "about",
        "help",
        "privacy",
        "legal",
        "music",
        "discover",
        "feed",
        "wall",
        "status",
        "messages",
        "notifications",
    ]
)
"""First path parts of the platforms' own pages (``instagram.com/p/…``, ``x.com/search``)."""


def social_handle(match: re.Match[str]) -> str | None:
    """The account a ``SOCIAL_RE`` match names (``None``: a page of the platform's own)."""
    handle = (match.group("s") or match.group("g") or "").rstrip(".")
    if match.group("s") and handle.casefold() in NOT_ACCOUNTS:
        return None
    return handle or None
