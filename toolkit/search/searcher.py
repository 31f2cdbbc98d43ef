"""Search one source: scan its recent messages, score them, return hits with context.

``Searcher(store, embedder).search(ref, query)`` (or the ``search`` function), or
``Searcher.run(request)`` with a ``toolkit.requests.SearchRequest``:

1. the scan window: the most recent ``scan_messages_limit`` searchable messages (not
   service, with text), inside ``[period_from, period_to]`` when given;
   and of one forum topic and some senders when ``topic_id``/``sender_peer_ids`` are
   given (the window is taken after these filters);
2. their vectors: from memory, else the store; a message with no stored vector of the
   model is embedded once and its vector handed to the store's background writer
   (``write_behind``: a search never writes itself; stored vectors are never
   recomputed), so a search waits on embedding at most for the messages of its own window;
3. the four signals and their fusion (``scorer``); the query vector comes from the
   embedder's LRU cache when it is a ``CachedQueryEmbedder``;
4. the top ``limit`` by score, ties newest first, each with up to two messages before
   and after it in posting order: of the hit's own topic in a forum (its conversation,
   whether or not the search was limited to a topic), else of the whole source; not
   limited to the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from datetime import datetime
from functools import partial
from typing import TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from toolkit.embeddings import Embedder, Matrix, similarity_floor
from toolkit.models import ContextMessage, Message, SearchHit, Source, utc
from toolkit.refs import SourceArg, message_link, ref_topic, resolve_source
from toolkit.requests import SearchRequest
from toolkit.search.request import (
    check_filters,
    check_request,
)
from toolkit.search.scorer import Signals, compute_signals, fuse
from toolkit.search.textcache import TextCache
from toolkit.store.base import MessageStore
from toolkit.turns import Turns
from toolkit.weights import SearchWeights, WeightsArg, resolve_weights

CONTEXT = 2
# Scores are reported (and compared) at this precision, so that equal scores are
# really equal and the newest-first tie rule decides, on every platform.
SCORE_DECIMALS = 6


# Keyed by text, the cache is valid for any store: one per process serves them all.
_shared_cache = TextCache()


class Searcher:
    """Hybrid search over a store with one embedder.

    Args:
        store: where messages and vectors live.
        embedder: the model; wrap it in ``CachedQueryEmbedder`` to cache query vectors.
        weights: default weights (``Settings.search``); a call may pass its own.
        cache: term ids and vectors of texts; by default one shared by the process.
        embed_batch_size: messages per embedding call for messages lacking a vector.
        concurrency: searches computed at once when several threads search (the
            service, the app); the others wait their turn (``toolkit.turns``).
            ``None``: no limit.
    """

    def __init__(
        self,
        store: MessageStore,
        embedder: Embedder,
        *,
        weights: SearchWeights | None = None,
        cache: TextCache | None = None,
        embed_batch_size: int = 64,
        concurrency: int | None = None,
    ) -> None:
        self.store = store
        self.turns = Turns(concurrency) if concurrency is not None else None
        self.embedder = embedder
        self.weights = weights if weights is not None else SearchWeights()
        self.cache = cache if cache is not None else _shared_cache
        self.embed_batch_size = embed_batch_size

    def _source(self, ref: SourceArg) -> tuple[Source, str]:
        source, echoed = resolve_source(self.store, ref)
        return source, echoed.raw

    def _vectors(
        self,
        source_id: int,
        ids: Sequence[int],
        texts: Sequence[str],
        vectors: Matrix,
        known: npt.NDArray[np.bool_],
    ) -> Matrix:
        """Fill the rows the cache lacked: stored vectors first, then the embedder."""
        model = self.embedder.model_name
        missing = [int(i) for i in np.flatnonzero(~known)]
        if not missing:
            return vectors
        stored = self.store.get_vectors(source_id, [ids[i] for i in missing], model)
        for i in missing:
            if ids[i] in stored:
                vectors[i] = stored[ids[i]]
        absent = [i for i in missing if ids[i] not in stored]
        for start in range(0, len(absent), self.embed_batch_size):
            batch = absent[start : start + self.embed_batch_size]
            fresh = self.embedder.embed_passages([texts[i] for i in batch])
            vectors[batch] = fresh
            # A search writes nothing itself: the background writer stores the vectors
            # (or drops them when it is busy; the next search computes them again).
            rows = [(ids[i], fresh[k].copy()) for k, i in enumerate(batch)]
            self.store.write_behind(partial(self.store.put_vectors, source_id, model, rows))
        self.cache.put_vectors([texts[i] for i in missing], model, vectors[missing])
        return vectors

    def _context(self, source: Source, messages: Sequence[Message]) -> list[ContextMessage]:
        return [
            ContextMessage(
                messenger_message_id=str(m.messenger_message_id),
                text=m.text,
                sender_peer_id=m.sender_peer_id or "",
                posted_at=m.posted_at,
                message_link=message_link(source, m.messenger_message_id, topic_id=m.topic_id),
            )
            for m in messages
        ]

    def run(self, request: SearchRequest) -> list[SearchHit]:
        """``search`` for one ``SearchRequest`` (an unset limit takes ``search``'s default).

        Raises:
            As for ``search``.
        """
        options: SearchOptions = {
            "period_from": request.period_from,
            "period_to": request.period_to,
            "weights": request.weights,
            "explain": request.explain,
            "topic_id": request.topic_id,
            "sender_peer_ids": request.sender_peer_ids,
        }
        if request.limit is not None:
            options["limit"] = request.limit
        if request.scan_messages_limit is not None:
            options["scan_messages_limit"] = request.scan_messages_limit
        return self.search(request.source_ref, request.query, **options)

    def search(
        self,
        source: SourceArg,
        query: str,
        *,
        limit: int = 20,
        scan_messages_limit: int = 200,
        period_from: datetime | None = None,
        period_to: datetime | None = None,
        weights: WeightsArg = None,
        explain: bool = False,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """Rank the scan window of a source for ``query``.

        Args:
            source: a reference (``@handle``, a link; echoed in the hits as given) or a
                stored ``Source``.
            query: the search text, 1..1000 characters, not blank.
            limit: hits to return, 1..100.
            scan_messages_limit: recent messages to scan, 1..10000.
            period_from: scan only messages posted at or after this moment.
            period_to: scan only messages posted at or before this moment.
            weights: this call's weights: ``SearchWeights``, or a mapping of some of its
                fields overriding the searcher's own.
            explain: attach each hit's signals.
            topic_id: scan only this forum topic's messages (General is 1).
            sender_peer_ids: scan only messages of these senders (``user123`` …); the
                window is "the most recent messages of these senders".

        Returns:
            At most ``limit`` hits, best first, ties newest first.

        Raises:
            InvalidRequest: out-of-bounds arguments (``InvalidWeights`` for weights).
            InvalidSourceRef: a reference that names no source.
            SourceNotFound: a source the store does not have.
            DeadlineExceeded: the deadline passed while waiting for a turn.
        """
        query = check_request(
            query,
            limit=limit,
            scan_messages_limit=scan_messages_limit,
            period_from=period_from,
            period_to=period_to,
        )
        if topic_id is None:  # a link into a forum topic searches that topic
            topic_id = ref_topic(source)
        topic_id, senders = check_filters(topic_id=topic_id, sender_peer_ids=sender_peer_ids)
        chosen = resolve_weights(weights, self.weights)
        with self.turns.turn() if self.turns is not None else nullcontext():
            found, source_ref = self._source(source)
            rows = self.store.scan_window(
                found.id,
                scan_messages_limit,
                since=utc(period_from) if period_from else None,
                until=utc(period_to) if period_to else None,
                topic_id=topic_id,
                sender_peer_ids=senders,
            )
            if not rows:
                return []
            ids = [r[0] for r in rows]
            posted = np.array([r[1] for r in rows], dtype=np.int64)
            texts = [r[2] for r in rows]
            model = self.embedder.model_name
            window, vectors, known = self.cache.lookup(texts, model, self.embedder.dimension)
            vectors = self._vectors(found.id, ids, texts, vectors, known)
            query_vector = self.embedder.embed_queries([query])[0]
            # einsum rather than BLAS: a multi-threaded BLAS call leaves its threads
            # spinning on the second core, which slows the next query's embedding several
            # times over on a 2-core machine; a single-threaded pass costs under 1 ms.
            cosines = np.einsum("ij,j->i", vectors, query_vector)
            signals = compute_signals(
                cosines,
                window,
                self.cache.query_ids(query),
                chosen,
                semantic_floor=similarity_floor(self.embedder),
            )
            scores = np.round(fuse(signals, chosen), SCORE_DECIMALS)
            # lexsort: the last key is the primary one; all descending.
            order = np.lexsort((-np.asarray(ids, dtype=np.int64), -posted, -scores))[:limit]
            return self._hits(
                found, source_ref, [int(i) for i in order], ids, scores, signals, explain
            )

    def _hits(
        self,
        source: Source,
        source_ref: str,
        order: Sequence[int],
        ids: Sequence[int],
        scores: npt.NDArray[np.float64],
        signals: Signals,
        explain: bool,
    ) -> list[SearchHit]:
        messages = {
            m.messenger_message_id: m
            for m in self.store.get_messages(source.id, [ids[i] for i in order])
        }
        around = self.store.neighbours_of(
            source.id, [ids[i] for i in order], before=CONTEXT, after=CONTEXT
        )
        hits = []
        for i in order:
            message = messages[ids[i]]
            before, after = around[message.messenger_message_id]
            hits.append(
                SearchHit(
                    source_ref=source_ref,
                    messenger_message_id=str(message.messenger_message_id),
                    source_title=source.title,
                    text=message.text,
                    message_link=message_link(
                        source, message.messenger_message_id, topic_id=message.topic_id
                    ),
                    posted_at=message.posted_at,
                    score=float(scores[i]),
                    context_before=self._context(source, before),
                    context_after=self._context(source, after),
                    signals=signals.explain(i) if explain else None,
                )
            )
        return hits


class SearchOptions(TypedDict, total=False):
    """The keyword options of ``Searcher.search`` (see there)."""

    limit: int
    scan_messages_limit: int
    period_from: datetime | None
    period_to: datetime | None
    weights: WeightsArg
    explain: bool
    topic_id: int | None
    sender_peer_ids: Sequence[str] | None


def search(
    store: MessageStore,
    embedder: Embedder,
    source: SourceArg,
    query: str,
    **options: Unpack[SearchOptions],
) -> list[SearchHit]:
    """Search one source (see ``Searcher.search``); default weights unless given."""
    return Searcher(store, embedder).search(source, query, **options)
