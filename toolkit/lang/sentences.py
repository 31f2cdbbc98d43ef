"""Sentences of a text in any language a pack knows.

A sentence ends at ``.`` ``!`` ``?`` ``…`` (and closing quotes) before white space, or
at a line break; a dot inside a URL or a version number ("v2.1") ends nothing, and
neither does one after an initial or an initialism ("Ann K.", "Анна К.", "U.S.":
capital letters of any script) or after an abbreviation of any pack ("Mr.", "т.е."),
and nothing ends inside a quotation that closes later in the text (“Are you coming? I
wait.” is one sentence's quote; an unclosed mark ends its quotation at the next
boundary). A list's item number ("2." in "1. look 2. shoot", a list a chat's line
breaks were folded out of) opens its item's sentence and never ends the one before it.
The packs hold the abbreviations and the quotation marks; this module holds no word.
"""

from __future__ import annotations

import re
from functools import lru_cache

_INITIAL_RE = re.compile(r"(?:^|(?<=[\s(]))((?:[^\W\d_]\.)+)$")
_ITEM = r"(?<![\w.,:/-])(\d{1,3})(?:\.\d{1,3})*[.)]"
"""A list item's number: "2.", "2)", "5.1." (never a decimal, a time or a date's part)."""
_ITEM_RE = re.compile(_ITEM + r"(?=\s|$)")
_TRAILING_ITEM_RE = re.compile(r"(?:^|(?<=\s))" + _ITEM + r"\s*$")


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
    """Whether ``text`` ends in an initial or an initialism: letters that are not lower
    case, each with its dot ("K.", "U.S.", «С.Ш.А.»)."""
    found = _INITIAL_RE.search(text)
    return found is not None and not any(ch.islower() for ch in found.group(1))


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
    return _quotes_whole(_items_whole([p for p in out if p], text))


def list_numbers(text: str) -> set[int]:
    """The first numbers of the list items ``text`` holds ("1." "2)" "6.1" → 1, 2, 6)."""
    return {int(m.group(1)) for m in _ITEM_RE.finditer(text)}


def trailing_item(text: str, numbers: set[int] | None = None) -> int | None:
    """Where the bare list number ``text`` ends on starts ("go home 2."), when it is one:
    a number with ``)``, or with ``.`` next to another number of the list (``numbers``,
    by default ``text``'s own: "We need 3." ends a sentence, "1. a 2." does not), or
    the first, right after a colon that leads in a list ("so much easier: 1.", the other items cut
    off by a quote's limit)."""
    found = _TRAILING_ITEM_RE.search(text)
    if found is None or not text[: found.start()].strip():
        return None  # a number alone ("7.") answers "how many?": no list's
    n = int(found.group(1))
    known = list_numbers(text[: found.start()]) if numbers is None else numbers
    led_in = n == 1 and text[: found.start()].rstrip().endswith(":")
    if found.group(0).rstrip().endswith(")") or {n - 1, n + 1} & known or led_in:
        return found.start()
    return None


def _item_alone(piece: str, numbers: set[int]) -> bool:
    """Whether ``piece`` is no more than a list item's number of the list ``numbers``
    ("2." where 1 or 3 is an item too, "2)")."""
    found = _TRAILING_ITEM_RE.fullmatch(piece.lstrip())
    if found is None:
        return False
    n = int(found.group(1))
    return found.group(0).rstrip().endswith(")") or bool({n - 1, n + 1} & numbers)


def _items_whole(pieces: list[str], text: str) -> list[str]:
    """``pieces`` with each list item's number moved from the end of the piece before it,
    or from a piece of its own (a line holding only "2."), to the start of its item."""
    numbers = list_numbers(text)
    out: list[str] = []
    carried = ""
    for piece in pieces:
        piece = carried + piece
        carried = ""
        if _item_alone(piece, numbers):  # "1. " on its own line: its item follows
            carried = piece
            continue
        at = trailing_item(piece, numbers)
        if at is not None and at > 0 and piece[:at].strip():
            piece, carried = piece[:at], piece[at:]
        out.append(piece)
    if carried:
        out.append(carried)
    return out


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


__all__ = ["list_numbers", "split_sentences", "trailing_item"]
