"""The in-memory search index: every searchable message of a source, kept current.

A search used to read its whole scan window from the store (10,000 rows of text), look
every text up in a cache and gather its terms and vectors, on every query. The index
keeps, per source, the messages' ids, times, topics and senders as numpy arrays in the
window's order (newest first), each message's content-term ids end to end in one array,
its content-term count (the short factor's input) and, per model, its vector as a row of
one contiguous float32 matrix. A scan window is then a mask over those arrays and a few
fancy-indexing operations; the four signals are one vectorised pass over it
(``scorer.compute_signals``), with the same results as before to the last bit.

Kept current, in every process: every write that changes a source's searchable messages
raises the source's ``generation`` in the store (``MessageStore.source_generation``:
upserts, staged imports, topics), and a search reads it (one indexed row) before using
the index; a changed generation reloads the source's rows, keeping the term ids and
vectors of every message whose text is unchanged. So an import, a sync or another
worker's or replica's write is seen by the next search of every process.

Lazy where it costs: a message's terms are computed the first time a window holds it
(stemming 100,000 texts takes seconds; a search needs its window's), and its vector is
read from the store, or embedded, the first time too. The matrix is allocated zeroed
(``calloc``: untouched rows take no memory), so an index over 100,000 messages costs
the vectors of the windows actually searched, plus about 30 bytes and the text of each
message (``SourceIndex.memory``).

One ``SearchIndex`` per store (``shared_index``) serves every searcher of a process; it
keeps at most ``max_messages`` messages over all its sources, dropping the least
recently searched source first.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from toolkit.embeddings import Matrix
from toolkit.models import MessageFilter
from toolkit.search.crossscript import QueryTerms, ScriptKeys, query_terms
from toolkit.search.signals import MAX_SCORED_CHARS, BoolVector, IntVector, TermWindow
from toolkit.store.base import MessageStore
from toolkit.text import terms

DEFAULT_MAX_MESSAGES = 1_000_000
"""Messages one process keeps indexed over all sources (``MLENS_SEARCH_INDEX_MAX_MESSAGES``)."""
MAX_BLOCKS = 2
"""Term windows of blocks of rows (the newest ``scan`` messages) a source index keeps."""
MIN_BLOCK_ROWS = 1_000
"""Rows a block needs for its term window to be kept: a smaller one is laid out anew in
a few dozen microseconds, a window of 10,000 rows in ~0.3 ms."""
NO_TOPIC = 0  # topic ids start at 1
NO_SENDER = -1


class Vocabulary:
    """Content terms as integer ids, one numbering for every source of a store
    (so that windows of several sources share one term space: ``search_all``)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._keys = ScriptKeys()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def analyse(self, text: str) -> list[int]:
        """The term ids of a message, in order (its first ``MAX_SCORED_CHARS`` read)."""
        scored = text if len(text) <= MAX_SCORED_CHARS else text[:MAX_SCORED_CHARS]
        found = terms(scored)
        ids, keys, out = self._ids, self._keys, []
        with self._lock:
            for term in found:
                known = ids.get(term)
                if known is None:
                    known = ids[term] = len(ids)
                    keys.add(term, known)
                out.append(known)
        return out

    def query_ids(self, query: str) -> list[int]:
        """The query's term ids in order (repeats kept; its first ``MAX_QUERY_TERMS``).

        A term no analysed message contains gets a negative id, distinct per term: it
        matches nothing but still counts in the query's length and coverage.
        """
        return self.query_terms(query).ids

    def query_terms(self, query: str) -> QueryTerms:
        """The query's terms with the messages' spellings of them in another script
        (``toolkit.search.crossscript``)."""
        with self._lock:
            return query_terms(query, self._ids, self._keys)


class _Terms:
    """Term ids of analysed messages end to end, growing by doubling."""

    def __init__(self, capacity: int = 1024) -> None:
        self.data: IntVector = np.zeros(max(capacity, 1024), dtype=np.int64)
        self.size = 0

    def append(self, ids: Sequence[int]) -> int:
        start, end = self.size, self.size + len(ids)
        if end > len(self.data):
            grown = np.zeros(max(end, 2 * len(self.data)), dtype=np.int64)
            grown[:start] = self.data[:start]
            self.data = grown
        self.data[start:end] = ids
        self.size = end
        return start


@dataclass(frozen=True, slots=True)
class Window:
    """What a search scores of one source's window: rows in the index, newest first."""

    positions: IntVector
    ids: IntVector
    posted: IntVector
    terms: TermWindow
    vectors: Matrix
    known: BoolVector


class SourceIndex:
    """Every searchable message of one source, newest first (see the module docstring).

    Args:
        source_id: the store's id of the source.
        generation: the source's ``generation`` when ``rows`` were read.
        rows: ``MessageStore.index_rows``, newest first.
        vocabulary: the store's term numbering.
        previous: the index this one replaces: term ids and vectors of messages whose
            text is unchanged are kept.
    """

    def __init__(
        self,
        source_id: int,
        generation: int,
        rows: Sequence[tuple[int, int, str, int | None, str | None]],
        vocabulary: Vocabulary,
        previous: SourceIndex | None = None,
    ) -> None:
        self.source_id = source_id
        self.generation = generation
        self.vocabulary = vocabulary
        self._lock = threading.Lock()
        n = len(rows)
        self.size = n
        self.ids: IntVector = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
        self.posted: IntVector = np.fromiter((r[1] for r in rows), dtype=np.int64, count=n)
        self.texts: list[str] = [r[2] for r in rows]
        self.topics: IntVector = np.fromiter(
            (NO_TOPIC if r[3] is None else r[3] for r in rows), dtype=np.int64, count=n
        )
        self._senders: dict[str, int] = {}
        code = self._senders.setdefault
        self.senders: IntVector = np.fromiter(
            (NO_SENDER if r[4] is None else code(r[4], len(self._senders)) for r in rows),
            dtype=np.int64,
            count=n,
        )
        self.term_start: IntVector = np.full(n, -1, dtype=np.int64)
        self.term_count: IntVector = np.zeros(n, dtype=np.int64)
        self._terms = _Terms()
        self._vectors: dict[str, tuple[Matrix, BoolVector]] = {}
        # The term windows of the last few blocks of rows searched (first row, rows).
        # A row's analysis never changes once made, so a block every row of which was
        # analysed keeps its window until the index is replaced.
        self._blocks: OrderedDict[tuple[int, int], TermWindow] = OrderedDict()
        if previous is not None:
            self._keep(previous)

    def _keep(self, previous: SourceIndex) -> None:
        """Take over the analysis and vectors of messages whose text did not change."""
        row_of = {int(m): i for i, m in enumerate(previous.ids.tolist())}
        old_texts = previous.texts
        new_rows, old_rows = [], []
        for i, (m, text) in enumerate(zip(self.ids.tolist(), self.texts, strict=True)):
            j = row_of.get(m)
            if j is not None and old_texts[j] == text:
                new_rows.append(i)
                old_rows.append(j)
        if not new_rows:
            return
        new = np.array(new_rows, dtype=np.int64)
        old = np.array(old_rows, dtype=np.int64)
        with previous._lock:
            analysed = previous.term_start[old] >= 0
            new_a, old_a = new[analysed], old[analysed]
            counts = previous.term_count[old_a]
            positions = _positions(previous.term_start[old_a], counts)
            self._terms = _Terms(len(positions))
            self._terms.data[: len(positions)] = previous._terms.data[positions]
            self._terms.size = len(positions)
            starts = np.zeros(len(counts), dtype=np.int64)
            np.cumsum(counts[:-1], out=starts[1:])
            self.term_start[new_a] = starts
            self.term_count[new_a] = counts
            for model, (matrix, known) in previous._vectors.items():
                mine, has = self._model(model, matrix.shape[1])
                keep = known[old]
                mine[new[keep]] = matrix[old[keep]]
                has[new[keep]] = True

    def _model(self, model: str, dimension: int) -> tuple[Matrix, BoolVector]:
        if model not in self._vectors:
            # np.zeros is calloc: rows never filled take no memory.
            matrix = np.zeros((self.size, dimension), dtype=np.float32)
            self._vectors[model] = (matrix, np.zeros(self.size, dtype=np.bool_))
        return self._vectors[model]

    def select(self, limit: int, filters: MessageFilter) -> IntVector:
        """Rows of the scan window: the newest ``limit`` messages passing ``filters``
        (``MessageStore.scan_window``'s rule, bounds rounded as the store rounds them;
        every row is searchable, whatever ``filters`` says of service messages and text)."""
        if not filters.narrows:
            return np.arange(min(limit, self.size), dtype=np.int64)
        mask = np.ones(self.size, dtype=np.bool_)
        if filters.since is not None:
            mask &= self.posted >= math.ceil(filters.since.timestamp())
        if filters.until is not None:
            mask &= self.posted <= math.floor(filters.until.timestamp())
        if filters.before is not None:
            mask &= self.posted < math.ceil(filters.before.timestamp())
        if filters.topic_id is not None:
            mask &= self.topics == int(filters.topic_id)
        if filters.sender_peer_ids is not None:
            codes = [self._senders[s] for s in filters.sender_peer_ids if s in self._senders]
            mask &= np.isin(self.senders, np.array(codes, dtype=np.int64))
        return np.flatnonzero(mask)[:limit].astype(np.int64)

    def window(self, positions: IntVector, model: str, dimension: int) -> Window:
        """Terms and known vectors of these rows (analysing rows seen for the first time)."""
        n = len(positions)
        # The usual window (the newest messages) is a block of rows.
        block = (
            (int(positions[0]), n)
            if n and int(positions[-1]) - int(positions[0]) == n - 1
            else None
        )
        with self._lock:
            terms = self._blocks.get(block) if block is not None else None
            if terms is None:
                terms = self._terms_of(positions)
                if block is not None and n >= MIN_BLOCK_ROWS:
                    self._blocks[block] = terms
                    if len(self._blocks) > MAX_BLOCKS:
                        self._blocks.popitem(last=False)
            elif block is not None:
                self._blocks.move_to_end(block)
            matrix, known = self._model(model, dimension)
            has = known[positions]
            # A block is a view, no copy: rows filled through it hold the vectors
            # ``put_vectors`` will.
            vectors = matrix[block[0] : block[0] + n] if block is not None else matrix[positions]
        return Window(
            positions=positions,
            ids=self.ids[positions],
            posted=self.posted[positions],
            terms=terms,
            vectors=vectors,
            known=has,
        )

    def _terms_of(self, positions: IntVector) -> TermWindow:
        """The term window of these rows, analysing those seen for the first time (the
        caller holds the lock)."""
        fresh = positions[self.term_start[positions] < 0]
        for row in fresh.tolist():
            ids = self.vocabulary.analyse(self.texts[row])
            self.term_start[row] = self._terms.append(ids)
            self.term_count[row] = len(ids)
        counts = self.term_count[positions]
        flat = _positions(self.term_start[positions], counts)
        offsets = np.zeros(len(positions) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        owner = np.repeat(np.arange(len(positions), dtype=np.int64), counts)
        return TermWindow(ids=self._terms.data[flat], offsets=offsets, owner=owner)

    def put_vectors(self, model: str, positions: IntVector, vectors: Matrix) -> None:
        """Remember the vectors of ``model`` of these rows."""
        with self._lock:
            matrix, known = self._model(model, vectors.shape[1])
            matrix[positions] = vectors
            known[positions] = True

    def memory(self) -> dict[str, int]:
        """Bytes this index holds: its arrays, term ids, texts, the vectors filled so far
        and the term windows of the blocks last searched."""
        arrays = sum(
            a.nbytes
            for a in (
                self.ids,
                self.posted,
                self.topics,
                self.senders,
                self.term_start,
                self.term_count,
            )
        )
        texts = sum(len(t.encode("utf-8")) + 49 for t in self.texts) + 8 * len(self.texts)
        vectors = sum(
            int(known.sum()) * matrix.shape[1] * matrix.itemsize + known.nbytes
            for matrix, known in self._vectors.values()
        )
        with self._lock:
            blocks = list(self._blocks.values())
        windows = sum(w.ids.nbytes + w.offsets.nbytes + w.owner.nbytes for w in blocks)
        return {
            "arrays": int(arrays),
            "terms": int(self._terms.size * 8),
            "texts": int(texts),
            "vectors": int(vectors),
            "windows": int(windows),
        }


def _positions(starts: IntVector, counts: IntVector) -> IntVector:
    """Positions of runs ``[start, start + count)`` end to end, without a Python loop."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    out: IntVector = np.arange(offsets[-1], dtype=np.int64) + np.repeat(
        starts - offsets[:-1], counts
    )
    return out


class SearchIndex:
    """The ``SourceIndex`` of every source one process searches in one store.

    Args:
        store: the store the sources live in.
        max_messages: messages kept over all sources; past it the least recently
            searched sources are dropped (and reloaded when searched again).
    """

    def __init__(self, store: MessageStore, max_messages: int = DEFAULT_MAX_MESSAGES) -> None:
        self.store = store
        self.max_messages = max_messages
        self.vocabulary = Vocabulary()
        self._sources: OrderedDict[int, SourceIndex] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[int, threading.Lock] = {}
        self.loads = 0

    def source(self, source_id: int) -> SourceIndex:
        """The source's index as the store holds it now (reloaded when it changed)."""
        generation = self.store.source_generation(source_id)
        with self._lock:
            current = self._sources.get(source_id)
            if current is not None and current.generation == generation:
                self._sources.move_to_end(source_id)
                return current
            loading = self._loading.setdefault(source_id, threading.Lock())
        with loading:  # one load per source at a time; the others take its result
            with self._lock:
                current = self._sources.get(source_id)
            if current is not None and current.generation >= generation:
                return current
            # The generation is read before the rows: a write in between makes the next
            # search reload again, never keeps a stale index.
            rows = self.store.index_rows(source_id)
            fresh = SourceIndex(source_id, generation, rows, self.vocabulary, current)
            with self._lock:
                self._sources[source_id] = fresh
                self._sources.move_to_end(source_id)
                self.loads += 1
                self._evict(keep=source_id)
            return fresh

    def _evict(self, keep: int) -> None:
        total = sum(s.size for s in self._sources.values())
        for source_id in list(self._sources):
            if total <= self.max_messages:
                break
            if source_id != keep:
                total -= self._sources.pop(source_id).size

    def memory(self) -> dict[str, int]:
        """Bytes held, by part, over all indexed sources (see ``SourceIndex.memory``)."""
        out: dict[str, int] = {}
        with self._lock:
            indexes = list(self._sources.values())
        for index in indexes:
            for part, size in index.memory().items():
                out[part] = out.get(part, 0) + size
        return out

    def __len__(self) -> int:
        return len(self._sources)


_shared: weakref.WeakKeyDictionary[Any, SearchIndex] = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()


def shared_index(store: MessageStore, max_messages: int | None = None) -> SearchIndex:
    """The process's one ``SearchIndex`` of ``store`` (created on first use).

    Args:
        store: the store.
        max_messages: the bound of a new index (``DEFAULT_MAX_MESSAGES`` when ``None``);
            an existing one keeps its own unless this is larger.
    """
    with _shared_lock:
        index = _shared.get(store)
        if index is None:
            index = SearchIndex(store, max_messages or DEFAULT_MAX_MESSAGES)
            _shared[store] = index
        elif max_messages is not None and max_messages > index.max_messages:
            index.max_messages = max_messages
        return index


__all__ = [
    "DEFAULT_MAX_MESSAGES",
    "SearchIndex",
    "SourceIndex",
    "Vocabulary",
    "Window",
    "shared_index",
]
