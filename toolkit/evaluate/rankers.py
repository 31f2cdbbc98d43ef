"""The ranking methods compared on the dev sets: BM25, dense, RRF and our hybrid.

Every method scores one query's candidate pool, the pool playing the scan window:

- **BM25**: ``bm25s`` (Lucene variant, k1 = 1.5, b = 0.75) over the pool, with the
  search's own terms (``toolkit.text.terms``: normalised, stop words out, stemmed);
- **dense**: the cosine of query and candidate vectors;
- **RRF**: reciprocal rank fusion of the BM25 and dense rankings, ``k = 60``;
- **hybrid**: ``toolkit.search.scorer`` with the given weights, exactly as a search.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from toolkit.embeddings import Matrix
from toolkit.search.scorer import Signals, compute_signals
from toolkit.search.signals import FloatVector
from toolkit.search.textcache import TextCache
from toolkit.text import terms
from toolkit.weights import SearchWeights

RRF_K = 60


def ranking(scores: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Candidate indices best first; equal scores keep pool order (deterministic)."""
    values = np.asarray(scores, dtype=np.float64)
    order: npt.NDArray[np.int64] = np.argsort(-values, kind="stable")
    return order


def bm25_scores(query: str, texts: Sequence[str]) -> FloatVector:
    """BM25 of ``query`` against the pool ``texts``, with IDF over the pool."""
    corpus = [terms(t) for t in texts]
    query_terms = [t for t in terms(query) if any(t in doc for doc in corpus)]
    if not query_terms:
        return np.zeros(len(texts), dtype=np.float64)
    import bm25s

    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(corpus, show_progress=False)
    return np.asarray(retriever.get_scores(query_terms), dtype=np.float64)


def dense_scores(query_vector: npt.ArrayLike, pool_vectors: Matrix) -> FloatVector:
    """Cosine of the query with each candidate (vectors are normalised)."""
    return np.asarray(pool_vectors @ np.asarray(query_vector), dtype=np.float64)


def rrf_scores(*score_lists: npt.ArrayLike, k: int = RRF_K) -> FloatVector:
    """Reciprocal rank fusion: ``sum(1 / (k + rank))`` over the given rankings (rank 1 = best)."""
    lists = [np.asarray(s, dtype=np.float64) for s in score_lists]
    fused = np.zeros(len(lists[0]), dtype=np.float64)
    for scores in lists:
        ranks = np.empty(len(scores), dtype=np.float64)
        ranks[ranking(scores)] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (k + ranks)
    return fused


def hybrid_signals(
    query: str,
    texts: Sequence[str],
    cosines: npt.ArrayLike,
    *,
    cache: TextCache,
    weights: SearchWeights,
    semantic_floor: float,
) -> tuple[Signals, npt.NDArray[np.int64]]:
    """The search's four signals over a pool, and the pool's content-term counts.

    The counts let a weight sweep recompute the short factor for other shapes
    without analysing the texts again.
    """
    window = cache.window(texts)
    signals = compute_signals(
        cosines, window, cache.query_terms(query), weights, semantic_floor=semantic_floor
    )
    return signals, window.lengths


__all__ = [
    "RRF_K",
    "bm25_scores",
    "dense_scores",
    "hybrid_signals",
    "ranking",
    "rrf_scores",
]
