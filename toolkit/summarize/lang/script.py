"""Scripts of text and names: which letters a text is in, and a name in another script.

Writing a name in the reader's script is what a translator does ("Анна" in an English
text is "Anna", "Quinn" in a Russian one "Куинн"). Cyrillic to Latin is the
``transliterate`` package's (its Russian or Ukrainian table, by the letters of the
name); Latin to Cyrillic is ``cyrtranslit``'s, word by word in lower case (so that
"Chitchat" becomes "Читчат", not "Chитчат"). Packs choose which applies to them.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CYRILLIC_RE = re.compile(r"[\u0400-\u04ff]")
_LATIN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]")
_UKRAINIAN_RE = re.compile(r"[іїєґІЇЄҐ]")
_WORD_RE = re.compile(r"[^\W\d_]+")
_SIGNS = str.maketrans("", "", "ьъЬЪ")
_LATIN_ONLY = {"x": "кс", "q": "к", "w": "в", "h": "х"}
"""Letters ``cyrtranslit`` leaves in Latin, as Russian and Ukrainian write their sound."""


def script(text: str) -> str | None:
    """``"cyrillic"`` or ``"latin"``: the script most of the letters are in (or ``None``)."""
    cyr, lat = len(_CYRILLIC_RE.findall(text)), len(_LATIN_RE.findall(text))
    if cyr == lat == 0:
        return None
    return "cyrillic" if cyr > lat else "latin"


def letters(text: str, of_script: str) -> tuple[int, int]:
    """``(letters in of_script, letters in all)`` of ``text``."""
    pattern = _CYRILLIC_RE if of_script == "cyrillic" else _LATIN_RE
    total = sum(1 for ch in text if ch.isalpha())
    return len(pattern.findall(text)), total


@lru_cache(maxsize=4096)
def to_latin(name: str) -> str:
    """A name in Latin letters (Cyrillic letters transliterated, others kept)."""
    if not _CYRILLIC_RE.search(name):
        return name
    from transliterate import translit  # type: ignore[import-untyped]

    table = "uk" if _UKRAINIAN_RE.search(name) else "ru"
    # Names drop the soft and hard signs in Latin letters ("Ольга" → "Olga", not "Ol'ga").
    return str(translit(name.translate(_SIGNS), table, reversed=True))


def _cyrillic_word(word: str, table: str) -> str:
    import cyrtranslit  # type: ignore[import-untyped]

    low = word.lower()
    for latin, cyrillic in _LATIN_ONLY.items():
        if latin == "h":
            continue  # cyrtranslit reads "h" itself ("ch", "sh")
        low = low.replace(latin, cyrillic)
    out = str(cyrtranslit.to_cyrillic(low, table))
    out = "".join(_LATIN_ONLY.get(ch, ch) for ch in out)
    return out[:1].upper() + out[1:] if word[:1].isupper() else out


@lru_cache(maxsize=4096)
def to_cyrillic(name: str, table: str = "ru") -> str:
    """A name in Cyrillic letters (Latin words transliterated with ``table``'s rules)."""
    if not _LATIN_RE.search(name):
        return name
    return _WORD_RE.sub(
        lambda m: _cyrillic_word(m.group(0), table) if _LATIN_RE.search(m.group(0)) else m.group(0),
        name,
    )
