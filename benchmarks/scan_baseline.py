"""The search before the in-memory index, kept to measure against in the same run.

``scan_search`` is the searcher's core as it was (issue 21, item 1): every query reads
its scan window from the store (``scan_window``: ids, times and texts), looks each text
up in a ``TextCache`` (term ids, vectors), scores the window and adds the hits' context.
``make bench`` times it beside ``Searcher.search`` on the same source, the same
queries and the same machine moment, and prints the ratio.
"""

from __future__ import annotations

import numpy as np

from toolkit.embeddings import Embedder, similarity_floor
from toolkit.models import Walk
from toolkit.refs import resolve_source
from toolkit.search.scorer import compute_signals, fuse
from toolkit.search.searcher import CONTEXT, SCORE_DECIMALS
from toolkit.search.textcache import TextCache
from toolkit.store.base import MessageStore
from toolkit.weights import SearchWeights


def scan_search(
    store: MessageStore,
    embedder: Embedder,
    cache: TextCache,
    weights: SearchWeights,
    ref: str,
    query: str,
    scan: int,
    limit: int = 20,
) -> list[tuple[int, float]]:
    """One search the pre-index way; ``(message id, score)`` best first.

    Vectors come from the cache, else the store (as before; the benchmark's source has
    every vector stored). The hits' messages and neighbours are read as the searcher
    reads them, so both paths pay the same for context.
    """
    source, _ = resolve_source(store, ref)
    rows = store.scan_window(source.id, scan)
    ids = [r[0] for r in rows]
    posted = np.array([r[1] for r in rows], dtype=np.int64)
    texts = [r[2] for r in rows]
    model = embedder.model_name
    window, vectors, known = cache.lookup(texts, model, embedder.dimension)
    missing = [int(i) for i in np.flatnonzero(~known)]
    if missing:
        stored = store.get_vectors(source.id, [ids[i] for i in missing], model)
        for i in missing:
            vectors[i] = stored[ids[i]]
        cache.put_vectors([texts[i] for i in missing], model, vectors[missing])
    query_vector = embedder.embed_queries([query])[0]
    signals = compute_signals(
        np.einsum("ij,j->i", vectors, query_vector),
        window,
        cache.query_ids(query),
        weights,
        semantic_floor=similarity_floor(embedder),
    )
    scores = np.round(fuse(signals, weights), SCORE_DECIMALS)
    order = np.lexsort((-np.asarray(ids, dtype=np.int64), -posted, -scores))[:limit]
    top = [ids[i] for i in order]
    store.get_messages(source.id, top)
    store.neighbours_of(source.id, top, Walk(before=CONTEXT, after=CONTEXT))
    return [(ids[i], float(scores[i])) for i in order]


__all__ = ["scan_search"]
