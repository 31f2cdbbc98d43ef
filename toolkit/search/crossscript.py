"""Terms that cross scripts: «Джаред Аллен» in a message matches "Jared Allen" in a query.

The lexical and phrase signals compare term ids; a name, a place or a number written in
another script has another id, so across languages they found nothing. Each term of a
vocabulary also gets a *key*, the same for its spellings in Cyrillic and Latin:

1. a term of a language not written in Latin letters (a stem of the lexicon that reads
   it, ``toolkit.lang``) is written in Latin by that lexicon's ``to_latin`` and stemmed
   again as Latin letters are, so that both sides lose their inflections (Russian:
   ``алленом`` → ``аллен`` → ``allen``; ``Jared`` → ``jare``);
2. the Latin spelling is folded: the digraphs two transliteration habits write
   differently become one letter (``dzh``/``j``, ``kh``/``h``/``g``, ``ts``/``cz``/``c``/``k``
   …), doubled letters are written once and final vowels dropped (``normandi`` and
   ``норманд`` are both ``normand``; ``warsaw`` and ``варшав`` both ``varsav``);
3. a number is its digits in ASCII (``١٠٦٦`` and ``1066`` are both ``1066``).

A query term then also matches the message terms *of the other script* that share its
key (within one script a skeleton would confuse words: ``line`` and ``lane``); the
matched ids are read as the query term's own (``QueryTerms.remap``), so coverage and
phrase runs count them as the term itself. Terms shorter than ``MIN_TERM`` letters, and
keys shorter than ``MIN_KEY``, match nothing across scripts: they are too many words.

The query's term sequence is cut to ``MAX_QUERY_TERMS`` terms: the lexical work of a
search grows with the query's terms (a phrase run is one pass over the window's hits
per term), and a real query has a few dozen at most.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from toolkit.lang import lexicon_of
from toolkit.search.signals import TermWindow
from toolkit.text import stem, terms

MAX_QUERY_TERMS = 64
"""Content terms of a query the lexical and phrase signals read (the first ones)."""
MIN_KEY = 3
"""Letters a key needs to match across scripts."""
MIN_TERM = 4
"""Letters a term needs to match across scripts (shorter stems are too many words)."""

_FOLDS = (
    ("shch", "s"),
    ("shh", "s"),
    ("sch", "s"),
    ("dzh", "j"),
    ("zh", "z"),
    ("kh", "h"),
    ("ch", "c"),
    ("cz", "c"),
    ("ts", "c"),
    ("sh", "s"),
    ("ph", "f"),
    ("th", "t"),
    ("ck", "k"),
    ("ou", "u"),
    ("x", "ks"),
    ("q", "k"),
    ("w", "v"),
    ("c", "k"),
    ("h", "g"),
    ("y", "i"),
    ("j", "i"),
)
"""Latin spellings that transliteration writes one way and English another."""
_NOT_LETTER = re.compile(r"[^a-z]")
_REPEATS = re.compile(r"(.)\1+")
_FINAL_VOWELS = re.compile(r"[aeiou]+$")

LATIN = "latin"
NUMBER = "number"
SCRIPT_CODES = {LATIN: 1, "cyrillic": 2}
"""A term's script (its lexicon's ``script``) as a small integer (0: none of these, e.g.
a number or a script no lexicon reads)."""


def _fold(latin: str) -> str:
    word = _NOT_LETTER.sub("", latin)
    for spelling, letter in _FOLDS:
        word = word.replace(spelling, letter)
    return _FINAL_VOWELS.sub("", _REPEATS.sub(r"\1", word))


@lru_cache(maxsize=200_000)
def script_key(term: str) -> tuple[str, str] | None:
    """The script of a term and its key (see the module docstring), or ``None`` for a
    term that matches across scripts only as itself (another script, a short key).

    Args:
        term: a content term as ``toolkit.text.terms`` gives it (a stem).

    Returns:
        ``(script, key)``: script ``"cyrillic"``, ``"latin"`` or ``"number"``.
    """
    if term.isdecimal():
        return NUMBER, "".join(str(unicodedata.decimal(ch)) for ch in term)
    found = lexicon_of(term)
    if found is None:
        return None
    script = found.script
    latin = term if found.to_latin is None else stem(found.to_latin(term).casefold())
    key = _fold(latin)
    return (script, key) if len(key) >= MIN_KEY and len(term) >= MIN_TERM else None


class ScriptKeys:
    """The vocabulary's term ids by key and script, and each term's script (not
    thread-safe: the vocabulary holding it adds terms under its own lock)."""

    def __init__(self) -> None:
        self.by_key: dict[str, dict[str, list[int]]] = {}
        self._scripts = np.zeros(1024, dtype=np.int8)

    def add(self, term: str, term_id: int) -> None:
        """Index a new vocabulary term (ids are given in order: 0, 1, 2 …)."""
        if term_id >= len(self._scripts):
            grown = np.zeros(max(term_id + 1, 2 * len(self._scripts)), dtype=np.int8)
            grown[: len(self._scripts)] = self._scripts
            self._scripts = grown
        reader = lexicon_of(term)
        if reader is not None:
            self._scripts[term_id] = SCRIPT_CODES.get(reader.script, 0)
        found = script_key(term)
        if found is None:
            return
        script, key = found
        self.by_key.setdefault(key, {}).setdefault(script, []).append(term_id)

    def scripts(self) -> npt.NDArray[np.int8]:
        """The script code (``SCRIPT_CODES``) of every term id added so far (a view)."""
        return self._scripts

    def others(self, term: str) -> list[int]:
        """Ids of the terms that ``term`` matches across scripts (its own id excluded):
        the other script's terms of its key; for a number, its other digit forms."""
        found = script_key(term)
        if found is None:
            return []
        script, key = found
        scripts = self.by_key.get(key, {})
        if script == NUMBER:
            return list(scripts.get(NUMBER, []))
        return [i for name, ids in scripts.items() if name not in (script, NUMBER) for i in ids]


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """A query's term ids in order (``MAX_QUERY_TERMS`` at most, repeats kept), the
    message term ids that count as one of them (``alias`` → the query term's id), its
    script (``SCRIPT_CODES``: the one most of its letter terms are in; 0 when none) and
    the script of every vocabulary term (for ``across``)."""

    ids: list[int]
    aliases: Mapping[int, int]
    script: int = 0
    term_scripts: npt.NDArray[np.int8] | None = None

    def across(self, window: TermWindow) -> npt.NDArray[np.bool_]:
        """Which messages are in another script than the query: most of their letter
        terms are (a message with no letter term, or a query without one, is not)."""
        out = np.zeros(window.size, dtype=np.bool_)
        if self.script == 0 or self.term_scripts is None or len(window.ids) == 0:
            return out
        known = self.term_scripts[: int(window.ids.max()) + 1]
        codes = known[window.ids]
        mine = np.bincount(window.owner, weights=codes == self.script, minlength=window.size)
        other = np.bincount(
            window.owner, weights=(codes != self.script) & (codes != 0), minlength=window.size
        )
        out[:] = other > mine
        return out

    def remap(self, window: TermWindow) -> TermWindow:
        """The window with every alias read as its query term (itself without aliases)."""
        if not self.aliases or len(window.ids) == 0:
            return window
        top = max(int(window.ids.max()), max(self.aliases)) + 1
        table = np.arange(top, dtype=np.int64)
        table[np.fromiter(self.aliases.keys(), dtype=np.int64)] = np.fromiter(
            self.aliases.values(), dtype=np.int64
        )
        return TermWindow(ids=table[window.ids], offsets=window.offsets, owner=window.owner)


def query_terms(query: str, ids: Mapping[str, int], keys: ScriptKeys) -> QueryTerms:
    """A query's ``QueryTerms`` against a vocabulary (read under the vocabulary's lock).

    A term no analysed message contains gets a negative id, distinct per term, unless
    another script's spelling of it is known (then that spelling's id is the term's).

    Args:
        query: the search text.
        ids: the vocabulary (term → id).
        keys: the vocabulary's ``ScriptKeys``.
    """
    unknown: dict[str, int] = {}
    chosen: dict[str, int] = {}
    counts = dict.fromkeys(SCRIPT_CODES.values(), 0)
    aliases: dict[int, int] = {}
    out = []
    for term in terms(query)[:MAX_QUERY_TERMS]:
        found = lexicon_of(term)
        if found is not None and found.script in SCRIPT_CODES:
            counts[SCRIPT_CODES[found.script]] += 1
        if term not in chosen:
            own = ids.get(term)
            others = keys.others(term)
            if own is None and others:
                own = others[0]
            if own is None:
                own = unknown.setdefault(term, -1 - len(unknown))
            chosen[term] = own
            for other in others:
                if other != own:
                    aliases.setdefault(other, own)
        out.append(chosen[term])
    own_ids = set(chosen.values())  # a query term is never read as another one
    script = max(counts, key=lambda code: counts[code]) if any(counts.values()) else 0
    return QueryTerms(
        out,
        {k: v for k, v in aliases.items() if k not in own_ids},
        script=script,
        term_scripts=keys.scripts(),
    )


__all__ = [
    "MAX_QUERY_TERMS",
    "MIN_KEY",
    "MIN_TERM",
    "SCRIPT_CODES",
    "QueryTerms",
    "ScriptKeys",
    "query_terms",
    "script_key",
]
