"""Scripts of text: which letters a text is in.

Names are not written in another script: a summary shows a name as the chat shows it
(``LanguagePack.name``), so that a reader finds the person it names.
"""

from __future__ import annotations

import re
from functools import cache

_CYRILLIC_RE = re.compile(r"[\u0400-\u04ff]")
_LATIN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]")


def script(text: str) -> str | None:
    """``"cyrillic"`` or ``"latin"``: the script most of the letters are in (or ``None``)."""
    cyr, lat = len(_CYRILLIC_RE.findall(text)), len(_LATIN_RE.findall(text))
    if cyr == lat == 0:
        return None
    return "cyrillic" if cyr > lat else "latin"


OTHER_SCRIPTS = {
    "cyrillic": "be bg sr mk kk ky mn tg tt ba cv os ce kv av ab",
    "latin": "de fr es it pt nl sv da no nb nn fi et lv lt pl cs sk sl hr bs ro hu tr az uz "
    "id ms tl sw ca gl eu ga cy is mt sq af lb fy oc br co la eo vi",
}
"""The script of languages without a lexicon here (ISO 639-1 codes): a model may be asked
to write them, and a line in another script is then surely not in them."""


@cache
def language_script(code: str) -> str | None:
    """``"cyrillic"`` or ``"latin"``: the script ``code`` is written in (its lexicon's
    ``script``, else ``OTHER_SCRIPTS``), or ``None`` when it is neither or unknown."""
    from toolkit.lang import CODES, lexicon

    if code in CODES:
        written = lexicon(code).script
        return written if written in ("cyrillic", "latin") else None
    return next((s for s, codes in OTHER_SCRIPTS.items() if code in codes.split()), None)


def letters(text: str, of_script: str) -> tuple[int, int]:
    """``(letters in of_script, letters in all)`` of ``text``."""
    pattern = _CYRILLIC_RE if of_script == "cyrillic" else _LATIN_RE
    total = sum(1 for ch in text if ch.isalpha())
    return len(pattern.findall(text)), total


_UPPER = "A-ZА-ЯЁІЇЄҐ"
_LOWER = "a-zа-яёіїєґ"
CAPITALISED = re.compile(rf"(?<=[\w,;:)\]»”'\"] )[{_UPPER}][{_LOWER}'’-]*[{_LOWER}]{{2}}")
"""A capitalised word after another word (a name or a place inside a sentence) in the
Latin or Cyrillic alphabet: the letters of the scripts, not words of a language."""
