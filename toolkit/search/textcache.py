"""What a search needs of each message text, computed once per text and kept in memory.

Tokenising and stemming ten thousand messages, or reading ten thousand vector blobs
from SQLite, on every query would cost far more than the scoring itself. So each
distinct text is analysed once: its content terms become integer ids (one vocabulary
per cache), stored end to end in one growing array, and its vector of each model is
kept in one growing matrix per model. A window is then gathered with a few numpy
fancy-indexing operations.

Entries are keyed by the text itself. A message's vector depends only on its text and
the model, so an edited message simply misses the cache, and identical texts share one
row. When the cache outgrows ``max_texts`` it starts afresh (the next query refills it).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from toolkit.embeddings import Matrix
from toolkit.search.crossscript import QueryTerms, ScriptKeys, query_terms
from toolkit.search.signals import MAX_SCORED_CHARS, BoolVector, IntVector, TermWindow
from toolkit.text import terms


class _Grow:
    """A 1-d or 2-d numpy array that grows by doubling (amortised O(1) appends)."""

    def __init__(self, width: int | None, dtype: type) -> None:
        shape = (1024,) if width is None else (1024, width)
        self.data: npt.NDArray[Any] = np.zeros(shape, dtype=dtype)
        self.size = 0

    def reserve(self, size: int) -> None:
        if size > len(self.data):
            capacity = max(size, 2 * len(self.data))
            grown = np.zeros((capacity, *self.data.shape[1:]), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.size = max(self.size, size)


class TextCache:
    """Term ids and vectors of message texts (thread-safe).

    Args:
        max_texts: distinct texts kept before the cache starts afresh. Each costs its
            vector of every model in use (1.5 KB for 384 floats) plus its term ids:
            100,000 texts (ten full 10,000-message windows) stay under ~200 MB.
    """

    def __init__(self, max_texts: int = 100_000) -> None:
        self.max_texts = max_texts
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self._vocabulary: dict[str, int] = {}
        self._keys = ScriptKeys()
        self._rows: dict[str, int] = {}
        self._starts = _Grow(None, np.int64)
        self._lengths = _Grow(None, np.int64)
        self._terms = _Grow(None, np.int64)
        self._vectors: dict[str, tuple[_Grow, _Grow]] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def _add(self, text: str) -> int:
        # Scored on a prefix: a 10 MB message must not cost seconds per query.
        scored = text if len(text) <= MAX_SCORED_CHARS else text[:MAX_SCORED_CHARS]
        vocabulary, ids = self._vocabulary, []
        for term in terms(scored):
            known = vocabulary.get(term)
            if known is None:
                known = vocabulary[term] = len(vocabulary)
                self._keys.add(term, known)
            ids.append(known)
        row = len(self._rows)
        self._rows[text] = row
        start = self._terms.size
        self._terms.reserve(start + len(ids))
        self._terms.data[start : start + len(ids)] = ids
        self._starts.reserve(row + 1)
        self._lengths.reserve(row + 1)
        self._starts.data[row] = start
        self._lengths.data[row] = len(ids)
        return row

    def _row_numbers(self, texts: Sequence[str]) -> IntVector:
        """Row numbers of these texts, analysing the ones not seen before.

        Rows stay valid only until the cache starts afresh, so callers hold the lock
        from here to their last use (``window`` and ``lookup`` do).
        """
        if len(self._rows) + len(texts) > self.max_texts:
            self._clear()
        get = self._rows.get
        add = self._add
        rows = []
        for text in texts:
            row = get(text)
            # Look up again after each add: a text may repeat within one window.
            rows.append(row if row is not None else add(text))
        return np.array(rows, dtype=np.int64)

    def _window(self, rows: IntVector) -> TermWindow:
        starts = self._starts.data[rows]
        lengths = self._lengths.data[rows]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # Positions of every row's terms, end to end, without a Python loop.
        positions = np.arange(offsets[-1], dtype=np.int64) + np.repeat(
            starts - offsets[:-1], lengths
        )
        owner = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        return TermWindow(ids=self._terms.data[positions], offsets=offsets, owner=owner)

    def window(self, texts: Sequence[str]) -> TermWindow:
        """The ``TermWindow`` of these texts, in order."""
        with self._lock:
            return self._window(self._row_numbers(texts))

    def lookup(
        self, texts: Sequence[str], model: str, dimension: int
    ) -> tuple[TermWindow, Matrix, BoolVector]:
        """The window's terms, the cached vectors of ``model`` and which rows have one.

        Returns:
            ``(window, vectors, known)``: rows of ``vectors`` where ``known`` is false
            are zeros, to be filled from the store or the embedder.
        """
        with self._lock:
            rows = self._row_numbers(texts)
            window = self._window(rows)
            matrix, known = self._model_arrays(model, dimension)
            in_range = rows < matrix.size
            has = np.zeros(len(rows), dtype=np.bool_)
            has[in_range] = known.data[rows[in_range]]
            vectors = np.zeros((len(rows), dimension), dtype=np.float32)
            vectors[has] = matrix.data[rows[has]]
        return window, vectors, has

    def _model_arrays(self, model: str, dimension: int) -> tuple[_Grow, _Grow]:
        if model not in self._vectors:
            self._vectors[model] = (_Grow(dimension, np.float32), _Grow(None, np.bool_))
        return self._vectors[model]

    def put_vectors(self, texts: Sequence[str], model: str, vectors: Matrix) -> None:
        """Remember the vectors of ``model`` for these texts."""
        with self._lock:
            rows = self._row_numbers(texts)
            matrix, known = self._model_arrays(model, vectors.shape[1])
            needed = int(rows.max()) + 1 if len(rows) else 0
            matrix.reserve(needed)
            known.reserve(needed)
            matrix.data[rows] = vectors
            known.data[rows] = True

    def query_ids(self, query: str) -> list[int]:
        """The query's term ids in order (repeats kept; its first ``MAX_QUERY_TERMS``).

        A term that no analysed text contains gets a negative id, distinct per term, so
        that it matches nothing but still counts in the query's length and coverage.
        """
        return self.query_terms(query).ids

    def query_terms(self, query: str) -> QueryTerms:
        """The query's terms with the analysed texts' spellings of them in another
        script (``toolkit.search.crossscript``)."""
        with self._lock:
            return query_terms(query, self._vocabulary, self._keys)


__all__ = ["TextCache"]
