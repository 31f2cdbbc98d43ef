"""Search one source, or several as one ranking: scan recent messages, score, add context.

``Searcher(store, embedder).search(request)`` with a ``toolkit.requests.SearchRequest``,
``Searcher.search_all(request)`` with a ``SearchAllRequest`` across sources (the
searcher applies the default limits and parses each ref, once):

1. the scan window: the most recent ``scan_messages_limit`` searchable messages (not
   service, with text), inside ``[period_from, period_to]`` when given;
   and of one forum topic and some senders when ``topic_id``/``sender_peer_ids`` are
   given (the window is taken after these filters). It is taken from the process's
   in-memory index of the source (``toolkit.search.index``), which reloads when the
   store says the source changed;
2. their vectors: from the index, else the store; a message with no stored vector of
   the model is embedded once and its vector handed to the store's background writer
   (``write_behind``: a search never writes itself; stored vectors are never
   recomputed), so a search waits on embedding at most for the messages of its own window;
   while a background embedding is at work (``embed_missing`` says no) a search embeds
   nothing itself and ranks the messages still lacking a vector by their lexical signals;
3. the four signals and their fusion (``scorer``), one vectorised pass over the window;
   the query vector is computed before the search takes its turn (from the embedder's
   LRU cache when it is a ``CachedQueryEmbedder``; the query cut to the model's query
   window), and the query's terms are its first ``crossscript.MAX_QUERY_TERMS``, each
   also matching its spelling in the other script (``crossscript``). Across sources the
   windows are scored as ONE window: the lexical signal's IDF is taken over all of
   them, so a score means the same whichever source a message is in (the other three
   signals are the message's own);
4. the top ``limit`` by score, ties newest first, each with up to two messages before
   and after it in posting order: of the hit's own topic in a forum (its conversation,
   whether or not the search was limited to a topic), else of the whole source; not
   limited to the window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial

import numpy as np
import numpy.typing as npt

from toolkit.config import SearchSettings
from toolkit.embeddings import Embedder, similarity_floor
from toolkit.errors import InvalidRequest
from toolkit.models import ContextMessage, Hits, Message, MessageFilter, SearchHit, Source, Walk
from toolkit.refs import SourceArg, message_link, parse_ref, ref_topic, resolve_source
from toolkit.requests import BaseSearchRequest, SearchAllRequest, SearchRequest
from toolkit.search.index import (
    NO_TOPIC,
    SearchIndex,
    SourceIndex,
    Window,
    shared_index,
)
from toolkit.search.request import check_request
from toolkit.search.scorer import Signals, compute_signals, fuse
from toolkit.search.signals import TermWindow
from toolkit.store.base import MessageStore
from toolkit.turns import Turns
from toolkit.weights import SearchWeights, resolve_weights

CONTEXT = 2
# Scores are reported (and compared) at this precision, so that equal scores are
# really equal and the newest-first tie rule decides, on every platform.
SCORE_DECIMALS = 6


def _default(setting: str) -> int:
    """A search bound as ``Settings.search`` declares its default, for a searcher built
    without settings (the Workspace passes the settings' own values)."""
    return int(SearchSettings.model_fields[setting].default)


@dataclass(frozen=True, slots=True)
class _Part:
    """One source's share of a search: its window in its index."""

    source: Source
    source_ref: str
    index: SourceIndex
    window: Window
    embedded: npt.NDArray[np.bool_]
    """Which rows of the window have a vector."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """A search request once checked: what ``_part`` and ``_rank`` need of it."""

    query: str
    limit: int
    scan: int
    filters: MessageFilter
    weights: SearchWeights
    explain: bool
    query_vector: npt.NDArray[np.float32]
    """The query's vector, embedded before the search takes its turn."""


def _best(
    scores: npt.NDArray[np.float64],
    ties: tuple[npt.NDArray[np.int64], ...],
    limit: int,
) -> npt.NDArray[np.intp]:
    """The positions of the ``limit`` best scores, best first, ties broken by ``ties``
    (the last key first), all descending. Only the scores at or above the ``limit``-th
    best are sorted: in a window of 10,000 that is a few dozen, not all."""
    if len(scores) > 4 * limit:
        kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(len(scores))
    keys = (*(-key[candidates] for key in ties), -scores[candidates])
    return candidates[np.lexsort(keys)][:limit]


class Searcher:
    """Hybrid search over a store with one embedder.

    Args:
        store: where messages and vectors live.
        embedder: the model; wrap it in ``CachedQueryEmbedder`` to cache query vectors.
        weights: default weights (``Settings.search.weights``); a call may pass its own.
        index: the in-memory index of the store's sources; by default the one the
            process shares for this store (``toolkit.search.index.shared_index``).
        embed_batch_size: messages per embedding call for messages lacking a vector.
        concurrency: searches computed at once when several threads search (the
            service, the app); the others wait their turn (``toolkit.turns``).
            ``None``: no limit.
        max_scan_all: sources × ``scan_messages_limit`` a ``search_all`` may scan
            (default: ``Settings.search.all_max_scan``'s default).
        default_limit, default_scan: ``limit`` and ``scan_messages_limit`` of a request
            that leaves them unset (default: ``Settings``' defaults; the Workspace
            passes the settings' own values).
        embed_missing: asked at every search: whether to embed the window's messages
            that lack a vector (always, by default). A background embedding answers no
            while it works, so that a search never waits on it.
    """

    def __init__(
        self,
        store: MessageStore,
        embedder: Embedder,
        *,
        weights: SearchWeights | None = None,
        index: SearchIndex | None = None,
        embed_batch_size: int = 64,
        concurrency: int | None = None,
        max_scan_all: int | None = None,
        embed_missing: Callable[[], bool] | None = None,
        default_limit: int | None = None,
        default_scan: int | None = None,
    ) -> None:
        self.store = store
        self.embed_missing = embed_missing
        self.turns = Turns(concurrency) if concurrency is not None else None
        self.embedder = embedder
        self.weights = weights if weights is not None else SearchWeights()
        self.index = index if index is not None else shared_index(store)
        self.embed_batch_size = embed_batch_size
        bound = max_scan_all
        self.max_scan_all = _default("all_max_scan") if bound is None else bound
        self.default_limit = _default("default_limit") if default_limit is None else default_limit
        scan = default_scan
        self.default_scan = _default("default_scan_messages_limit") if scan is None else scan

    def _part(
        self, source: Source, source_ref: str, limit: int, filters: MessageFilter
    ) -> _Part | None:
        """The source's window with every vector filled; ``None`` when it is empty."""
        index = self.index.source(source.id)
        positions = index.select(limit, filters)
        if len(positions) == 0:
            return None
        window = index.window(positions, self.embedder.model_name, self.embedder.dimension)
        embedded = self._fill(index, window)
        return _Part(source, source_ref, index, window, embedded)

    def _fill(self, index: SourceIndex, window: Window) -> npt.NDArray[np.bool_]:
        """Fill the rows the index lacked: stored vectors first, then (unless a background
        embedding is at work) the embedder; answer which rows have a vector."""
        missing = np.flatnonzero(~window.known)
        if len(missing) == 0:
            return np.asarray(window.known, dtype=np.bool_)
        have = np.array(window.known, dtype=np.bool_)
        model, vectors = self.embedder.model_name, window.vectors
        ids = [int(i) for i in window.ids[missing]]
        stored = self.store.get_vectors(index.source_id, ids, model)
        absent = []
        for k, message_id in zip(missing.tolist(), ids, strict=True):
            if message_id in stored:
                vectors[k] = stored[message_id]
                have[k] = True
            else:
                absent.append(k)
        if self.embed_missing is not None and not self.embed_missing():
            absent = []
        rows = window.positions
        for start in range(0, len(absent), self.embed_batch_size):
            batch = absent[start : start + self.embed_batch_size]
            fresh = self.embedder.embed_passages([index.texts[rows[k]] for k in batch])
            vectors[batch] = fresh
            # A search writes nothing itself: the background writer stores the vectors
            # (or drops them when it is busy; the next search computes them again).
            written = [(int(window.ids[k]), fresh[j].copy()) for j, k in enumerate(batch)]
            self.store.write_behind(
                partial(self.store.put_vectors, index.source_id, model, written)
            )
        have[absent] = True
        filled = missing[have[missing]]
        if len(filled):
            index.put_vectors(model, rows[filled], vectors[filled])
        return have

    def _context(self, source: Source, messages: Sequence[Message]) -> list[ContextMessage]:
        return [
            ContextMessage(
                messenger_message_id=str(m.messenger_message_id),
                text=m.text,
                sender_peer_id=m.sender_peer_id or "",
                posted_at=m.posted_at,
                message_link=message_link(source, m.messenger_message_id, topic_id=m.topic_id),
                reactions=dict(m.reactions),
            )
            for m in messages
        ]

    def _plan(self, request: BaseSearchRequest, linked_topic: int | None) -> _Plan:
        """The checked request: bounds, filters (the topic of the request, else
        ``linked_topic``, the one its reference points into), weights, and the query's vector.

        The query is embedded here, before the search takes its turn (``self.turns``):
        the embedder reads at most its query window (``embeddings.base.QUERY_TOKENS``),
        and a long query's embedding is the querier's wait, not that of every search
        queued behind its turn.

        Raises:
            InvalidRequest: out-of-bounds fields (``InvalidWeights`` for weights).
        """
        limit = self.default_limit if request.limit is None else request.limit
        scan = request.scan_messages_limit
        scan = self.default_scan if scan is None else scan
        period_from, period_to = request.period_from, request.period_to
        query = check_request(
            request.query,
            limit=limit,
            scan_messages_limit=scan,
            period_from=period_from,
            period_to=period_to,
        )
        filters = request.message_filter(linked_topic)
        weights = resolve_weights(request.weights, self.weights)
        vector = self.embedder.embed_queries([query])[0]
        return _Plan(query, limit, scan, filters, weights, request.explain, vector)

    def search(self, request: SearchRequest) -> Hits:
        """Rank the scan window of ``request.source_ref`` for ``request.query``.

        The request's fields are ``SearchRequest``'s: an unset ``limit`` or
        ``scan_messages_limit`` takes the searcher's default, its weights override the
        searcher's own, and a link into a forum topic searches that topic when
        ``topic_id`` is not given. The ref is parsed here, once.

        Returns:
            At most ``limit`` hits, best first, ties newest first; with how many
            messages were scanned and how many of them had a vector.

        Raises:
            InvalidRequest: out-of-bounds fields (``InvalidWeights`` for weights).
            InvalidSourceRef: a reference that names no source.
            SourceNotFound: a source the store does not have.
            DeadlineExceeded: the deadline passed while waiting for a turn.
        """
        ref = request.source_ref
        if isinstance(ref, str):
            ref = parse_ref(ref)
        plan = self._plan(request, ref_topic(ref))  # a link into a topic searches it
        with self.turns.turn() if self.turns is not None else nullcontext():
            found, echoed = resolve_source(self.store, ref)
            part = self._part(found, echoed.raw, plan.scan, plan.filters)
            if part is None:
                return Hits()
            return self._rank([part], plan)

    def search_all(self, request: SearchAllRequest) -> Hits:
        """Rank the scan windows of several sources for ``request.query``, as one list.

        Each source's window is what ``search`` would scan; the windows are then scored
        together, as one window (the lexical signal's IDF over all of them), so that
        every score means the same whichever source its message is in. ``source_refs``
        ``None``: every stored source (hits carry its key, ``@handle`` or ``c/<id>``);
        ``limit`` is over all sources.

        Returns:
            At most ``limit`` hits, best first, ties newest first.

        Raises:
            InvalidRequest: out-of-bounds fields; ``source_refs`` empty; sources ×
                ``scan_messages_limit`` above ``max_scan_all`` (``field`` names
                ``scan_messages_limit``).
            InvalidSourceRef: a reference that names no source.
            SourceNotFound: a source the store does not have.
            DeadlineExceeded: the deadline passed while waiting for a turn.
        """
        plan = self._plan(request, None)
        targets = self._targets(request.source_refs)
        total = len(targets) * plan.scan
        if total > self.max_scan_all:
            raise InvalidRequest(
                f"{len(targets)} sources × scan_messages_limit {plan.scan} = "
                f"{total:,} messages, above the bound of {self.max_scan_all:,} "
                "(MLENS_SEARCH_ALL_MAX_SCAN): name fewer sources or scan fewer messages",
                field="scan_messages_limit",
            )
        with self.turns.turn() if self.turns is not None else nullcontext():
            parts = []
            for source, ref, ref_topic_id in targets:
                filters = plan.filters
                if filters.topic_id is None:
                    filters = replace(filters, topic_id=ref_topic_id)
                part = self._part(source, ref, plan.scan, filters)
                if part is not None:
                    parts.append(part)
            if not parts:
                return Hits()
            return self._rank(parts, plan)

    def _targets(
        self, source_refs: Sequence[SourceArg] | None
    ) -> list[tuple[Source, str, int | None]]:
        """The sources of a ``search_all``, each once (its first reference echoed), with
        the topic its reference points into."""
        if source_refs is None:
            return [(s.source, s.source.key, None) for s in self.store.list_sources()]
        if isinstance(source_refs, str | Source) or not source_refs:
            raise InvalidRequest(
                "source_refs must list at least one source (leave it out for all)",
                field="source_refs",
            )
        out: dict[int, tuple[Source, str, int | None]] = {}
        for ref in source_refs:
            source, echoed = resolve_source(self.store, ref)  # parsed once, here
            out.setdefault(source.id, (source, echoed.raw, echoed.topic_id))
        return list(out.values())

    def _rank(self, parts: Sequence[_Part], plan: _Plan) -> Hits:
        """Score the windows as one, keep the best ``plan.limit``, add their context (and
        say how many of the windows' messages had a vector)."""
        query, weights = plan.query, plan.weights
        if len(parts) == 1:
            terms, vectors = parts[0].window.terms, parts[0].window.vectors
        else:
            terms = _concatenate([p.window.terms for p in parts])
            vectors = np.concatenate([p.window.vectors for p in parts])
        ids = np.concatenate([p.window.ids for p in parts])
        posted = np.concatenate([p.window.posted for p in parts])
        owner = np.repeat(np.arange(len(parts)), [len(p.window.ids) for p in parts])
        query_vector = plan.query_vector
        # einsum rather than BLAS: a multi-threaded BLAS call leaves its threads
        # spinning on the second core, which slows the next query's embedding several
        # times over on a 2-core machine; a single-threaded pass costs under 1 ms.
        cosines = np.einsum("ij,j->i", vectors, query_vector)
        signals = compute_signals(
            cosines,
            terms,
            self.index.vocabulary.query_terms(query),
            weights,
            semantic_floor=similarity_floor(self.embedder),
        )
        embedded = np.concatenate([p.embedded for p in parts])
        scores = np.round(fuse(signals, weights, embedded=embedded), SCORE_DECIMALS)
        # lexsort: the last key is the primary one; all descending (the source's id
        # last, so that equal times in two sources still order the same every time).
        sources = np.array([p.source.id for p in parts], dtype=np.int64)[owner]
        order = _best(scores, (sources, ids, posted), plan.limit)
        starts = np.cumsum([0, *(len(p.window.ids) for p in parts)])
        hits: dict[int, SearchHit] = {}
        for k, part in enumerate(parts):
            mine = [int(i) for i in order if owner[i] == k]
            if mine:
                rows = part.window.positions[np.array(mine, dtype=np.int64) - starts[k]]
                found = self._hits(part, mine, rows, scores, signals, plan.explain)
                hits.update(zip(mine, found, strict=True))
        ranked = [hits[int(i)] for i in order]
        return Hits(ranked, scanned=len(ids), embedded=int(embedded.sum()))

    def _hits(
        self,
        part: _Part,
        order: Sequence[int],
        rows: npt.NDArray[np.int64],
        scores: npt.NDArray[np.float64],
        signals: Signals,
        explain: bool,
    ) -> list[SearchHit]:
        """The hits of one source: ``order`` their places in the ranked arrays, ``rows``
        their rows in the source's index (which holds what was scored: the text, time
        and topic); the context around them is read from the store."""
        source, source_ref, index = part.source, part.source_ref, part.index
        wanted = index.ids[rows].tolist()
        around = self.store.neighbours_of(source.id, wanted, Walk(before=CONTEXT, after=CONTEXT))
        # The index holds what is scored; what the audience answered is read with the hits.
        reactions = {
            m.messenger_message_id: dict(m.reactions)
            for m in self.store.get_messages(source.id, wanted)
            if m.reactions
        }
        hits = []
        for i, row, message_id in zip(order, rows.tolist(), wanted, strict=True):
            topic = int(index.topics[row])
            before, after = around[message_id]
            hits.append(
                SearchHit(
                    source_ref=source_ref,
                    messenger_message_id=str(message_id),
                    source_title=source.title,
                    text=index.texts[row],
                    message_link=message_link(
                        source, message_id, topic_id=None if topic == NO_TOPIC else topic
                    ),
                    posted_at=datetime.fromtimestamp(int(index.posted[row]), tz=UTC),
                    score=float(scores[i]),
                    context_before=self._context(source, before),
                    context_after=self._context(source, after),
                    signals=signals.explain(i) if explain else None,
                    reactions=reactions.get(message_id, {}),
                )
            )
        return hits


def _concatenate(windows: Sequence[TermWindow]) -> TermWindow:
    """Several term windows as one (messages of the first, then of the second, ...)."""
    sizes = [w.size for w in windows]
    offsets = [np.zeros(1, dtype=np.int64)]
    shift = 0
    for w in windows:
        offsets.append(w.offsets[1:] + shift)
        shift += int(w.offsets[-1])
    firsts = np.cumsum([0, *sizes[:-1]])
    return TermWindow(
        ids=np.concatenate([w.ids for w in windows]),
        offsets=np.concatenate(offsets),
        owner=np.concatenate([w.owner + first for w, first in zip(windows, firsts, strict=True)]),
    )
