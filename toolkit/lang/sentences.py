"""Sentences of a text in any language a pack knows.

A sentence ends at ``.`` ``!`` ``?`` ``…`` (and closing quotes) before white space, or
at a line break; a dot inside a URL or a version number ("v2.1") ends nothing, and
neither does one after an initial ("Ann K.", "Анна К.": a capital letter of any
script) or after an abbreviation of any pack ("Mr.", "т.е."), and nothing ends inside a
quotation that closes later in the text (“Are you coming? I wait.” is one sentence's
quote; an unclosed mark ends its quotation at the next boundary). The packs hold the
abbreviations and the quotation marks; this module holds no word.
"""

from __future__ import annotations

import re
from functools import lru_cache

_INITIAL_RE = re.compile(r"(?:^|(?<=\s))([^\W\d_])\.$")


@lru_cache(maxsize=1)
def _abbreviation_re() -> re.Pattern[str]:
    from toolkit.lang import packs, quotation_marks

    words = sorted({w for pack in packs() for w in pack.abbreviations}, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    openers = re.escape("".join(quotation_marks()))
    return re.compile(rf"(?:^|(?<=[\s({openers}]))(?:{alternatives})\.$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _boundary_re() -> re.Pattern[str]:
    """Where a sentence ends: after ``.`` ``!`` ``?`` ``…`` and any closing quotation
    marks (of every pack) or brackets, before white space; at a line break."""
    from toolkit.lang import quotation_marks

    closers = re.escape("".join(quotation_marks().values()))
    return re.compile(rf"((?<=[.!?…])[\"'{closers})]*[ \t]+|(?<=[.!?…][\"'{closers})])[ \t]+|\n+)")


def _initial(text: str) -> bool:
    """Whether ``text`` ends in an initial: one letter that is not lower case, and a dot."""
    found = _INITIAL_RE.search(text)
    return found is not None and not found.group(1).islower()


def _open_quote(piece: str, rest: str) -> bool:
    """Whether ``piece`` ends inside a quotation that ``rest`` (the text after it) closes.

    Paired marks (every pack's, ``«`` → ``»``) nest; a straight ``"`` opens and closes
    by turns."""
    from toolkit.lang import quotation_marks

    pairs = {**quotation_marks(), '"': '"'}
    closing: list[str] = []
    for ch in piece:
        if closing and ch == closing[-1]:
            closing.pop()
        elif ch in pairs:
            closing.append(pairs[ch])
    return bool(closing) and all(c in rest for c in closing)


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, each with its trailing separator; joined, they are ``text``."""
    parts = _boundary_re().split(text)
    pieces = [
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    ]
    out: list[str] = []
    for piece in pieces:
        # "Mr. Smith", "т.е. так": a sentence never ends after an abbreviation of a pack.
        ended = out[-1].rstrip() if out else ""
        if (
            out
            and not out[-1].endswith("\n")
            and (_initial(ended) or _abbreviation_re().search(ended))
        ):
            out[-1] += piece
        else:
            out.append(piece)
    return _quotes_whole([p for p in out if p])


def _quotes_whole(pieces: list[str]) -> list[str]:
    """``pieces`` with each quotation that a boundary cut joined again."""
    out: list[str] = []
    joined = False
    for n, piece in enumerate(pieces):
        if joined:
            out[-1] += piece
        else:
            out.append(piece)
        joined = _open_quote(out[-1], "".join(pieces[n + 1 :]))
    return out


__all__ = ["split_sentences"]
