"""The four ranking signals of DESIGN.md §4: pure, vectorised numpy functions.

Every function takes arrays describing the whole scan window and returns one value per
message, each in [0, 1]; nothing here does I/O or mutates its inputs.

The window's terms arrive as a ``TermWindow``: the term ids of every message laid end
to end (``ids``) with ``offsets`` marking where each message starts, so that one numpy
pass covers ten thousand messages without a Python loop over them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatVector = npt.NDArray[np.float64]
IntVector = npt.NDArray[np.int64]
BoolMatrix = npt.NDArray[np.bool_]
BoolVector = npt.NDArray[np.bool_]
MAX_SCORED_CHARS = 20_000
"""Characters of a message the lexical and phrase signals read (its first ~3,000 words)."""


@dataclass(frozen=True, slots=True)
class TermWindow:
    """The content terms of ``n`` messages as one flat array.

    Attributes:
        ids: term ids of every message, concatenated.
        offsets: ``n + 1`` positions; message ``i`` owns ``ids[offsets[i]:offsets[i+1]]``.
        owner: for each position of ``ids``, the index of the message it belongs to.
    """

    ids: IntVector
    offsets: IntVector
    owner: IntVector

    @classmethod
    def build(cls, per_message: Sequence[npt.ArrayLike]) -> TermWindow:
        """Lay the term ids of each message end to end."""
        arrays = [np.asarray(a, dtype=np.int64) for a in per_message]
        lengths = np.array([len(a) for a in arrays], dtype=np.int64)
        offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        owner = np.repeat(np.arange(len(arrays), dtype=np.int64), lengths)
        return cls(ids=ids, offsets=offsets, owner=owner)

    @property
    def size(self) -> int:
        """Number of messages."""
        return int(len(self.offsets) - 1)

    @property
    def lengths(self) -> IntVector:
        """Content terms per message."""
        return np.diff(self.offsets)


def semantic(cosines: npt.ArrayLike, *, floor: float = 0.0, exponent: float = 1.0) -> FloatVector:
    """Cosine similarity mapped onto [0, 1].

    A model's cosines do not use the whole [-1, 1] range: e5 puts unrelated texts near
    0.7 and close paraphrases above 0.9. ``floor`` is the cosine that counts as "no
    similarity": cosines from ``floor`` to 1 map linearly to ``x`` in 0..1 (anything
    below is 0), and the signal is ``x ** exponent``. An exponent above 1 makes the
    signal steepest near 1, so that small differences among close paraphrases weigh
    more than the same differences among loosely related texts.

    Args:
        cosines: query-message cosine similarities (any shape).
        floor: the cosine mapped to 0, in [-1, 1).
        exponent: the shape of the map (> 0; 1 is linear).
    """
    cos = np.asarray(cosines, dtype=np.float64)
    mapped: FloatVector = np.clip((cos - floor) / (1.0 - floor), 0.0, 1.0) ** exponent
    return mapped


def _columns(window: TermWindow, query: IntVector) -> IntVector:
    """For each position of ``window.ids``, the index in ``query`` (distinct ids) of its
    term, or -1. One lookup table over the term ids (a gather per position), several
    times faster than ``np.isin`` over a 10,000-message window."""
    known = np.flatnonzero(query >= 0)  # negative ids are terms no message contains
    if len(known) == 0 or len(window.ids) == 0:
        return np.full(len(window.ids), -1, dtype=np.int64)
    size = int(max(int(query[known].max()), int(window.ids.max()))) + 1
    table = np.full(size, -1, dtype=np.int64)
    table[query[known]] = known
    out: IntVector = table[window.ids]
    return out


def term_presence(window: TermWindow, query_ids: npt.ArrayLike) -> BoolMatrix:
    """Which of the query's distinct terms each message contains.

    Args:
        window: the messages' terms.
        query_ids: the query's distinct term ids (length ``k``).

    Returns:
        A boolean ``(n, k)`` matrix; column ``j`` is ``query_ids[j]``. Stored column by
        column (Fortran order): the IDF and the coverage read it by column.
    """
    query = np.asarray(query_ids, dtype=np.int64)
    presence = np.zeros((window.size, len(query)), dtype=np.bool_, order="F")
    if len(query) == 0 or len(window.ids) == 0:
        return presence
    columns = _columns(window, query)
    hits = np.flatnonzero(columns >= 0)
    presence[window.owner[hits], columns[hits]] = True
    return presence


def window_idf(presence: BoolMatrix) -> FloatVector:
    """IDF of each query term over the window: ``ln(1 + (N - df + 0.5) / (df + 0.5))``.

    The BM25 form stays positive for a term in every message and is largest for a term
    in none (which then lowers every message's coverage by the same share).
    """
    n = presence.shape[0]
    df = np.count_nonzero(presence, axis=0).astype(np.float64)
    idf: FloatVector = np.log1p((n - df + 0.5) / (df + 0.5))
    return idf


def lexical_coverage(presence: BoolMatrix, idf: npt.ArrayLike) -> FloatVector:
    """IDF-weighted share of the query's distinct terms that each message contains.

    Args:
        presence: ``(n, k)`` from ``term_presence``.
        idf: ``k`` weights from ``window_idf``.

    Returns:
        ``sum(idf of present terms) / sum(idf)``; 0 for a query without terms.
    """
    weights = np.asarray(idf, dtype=np.float64)
    total = float(weights.sum())
    if presence.shape[1] == 0 or total <= 0:
        return np.zeros(presence.shape[0], dtype=np.float64)
    covered = np.einsum("ij,j->i", presence, weights)  # no BLAS threads (see searcher)
    coverage: FloatVector = np.clip(covered / total, 0.0, 1.0)
    return coverage


def longest_runs(window: TermWindow, query_sequence: npt.ArrayLike) -> IntVector:
    """Per message, the longest run of consecutive query terms found contiguous in it.

    This is the longest common substring of the query's term sequence and the
    message's, computed for all messages at once: ``run[i][p]`` is the length of the
    match that ends with query term ``i`` at position ``p`` of the flat array.

    Args:
        window: the messages' terms.
        query_sequence: the query's term ids in order (repeats kept).

    Returns:
        One run length per message (0 when it shares no query term).
    """
    query = np.asarray(query_sequence, dtype=np.int64)
    best = np.zeros(window.size, dtype=np.int64)
    if len(query) == 0 or len(window.ids) == 0:
        return best
    # Only positions holding a query term can be part of a run: work on those alone.
    hits = np.flatnonzero(_columns(window, np.unique(query)) >= 0)
    if len(hits) == 0:
        return best
    terms = window.ids[hits]
    owner = window.owner[hits]
    # A run continues from the previous hit only when it is the adjacent position of
    # the same message.
    continues = np.zeros(len(hits), dtype=np.bool_)
    continues[1:] = (np.diff(hits) == 1) & (owner[1:] == owner[:-1])
    longest = np.zeros(len(hits), dtype=np.int64)
    previous = np.zeros(len(hits), dtype=np.int64)
    for term in query:
        carried = np.zeros_like(previous)
        carried[1:] = previous[:-1]
        carried[~continues] = 0
        current = np.where(terms == term, carried + 1, 0)
        np.maximum(longest, current, out=longest)
        previous = current
    np.maximum.at(best, owner, longest)
    return best


def phrase_match(runs: npt.ArrayLike, n_query_terms: int) -> FloatVector:
    """1 for the whole query as a contiguous phrase; partial credit for shorter runs.

    A run of ``L`` of the query's ``n`` terms scores ``L / n`` when ``L >= 2``: a lone
    shared term is no phrase (lexical coverage already rewards it). A one-term query
    scores 1 wherever its term occurs.

    Args:
        runs: per message, from ``longest_runs``.
        n_query_terms: length of the query's term sequence.
    """
    run = np.asarray(runs, dtype=np.float64)
    if n_query_terms <= 0:
        return np.zeros(run.shape, dtype=np.float64)
    needed = min(2, n_query_terms)
    return np.where(run >= needed, np.minimum(run / n_query_terms, 1.0), 0.0)


def short_factor(n_terms: npt.ArrayLike, *, floor: float, scale: float) -> FloatVector:
    """A smooth multiplier below 1 for messages with few content terms.

    ``floor + (1 - floor) · (1 - exp(-n / scale))``: a message with no content term
    ("ok", an emoji, a bare mention) gets ``floor``; the factor rises towards 1 as the
    message gets longer, ``scale`` setting how fast.

    Args:
        n_terms: content terms per message.
        floor: the factor of an empty message, in [0, 1].
        scale: terms at which the factor has covered 63% of the way to 1 (> 0).
    """
    n = np.asarray(n_terms, dtype=np.float64)
    return floor + (1.0 - floor) * -np.expm1(-n / scale)


__all__ = [
    "TermWindow",
    "lexical_coverage",
    "longest_runs",
    "phrase_match",
    "semantic",
    "short_factor",
    "term_presence",
    "window_idf",
]
