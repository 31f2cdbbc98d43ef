"""Run every ranking method on the dev sets and score it: the numbers of ``make eval``.

The expensive parts (BM25 over each pool, cosines, the four signals) are computed once
per query by ``prepare``; a method's ranking is then a cheap function of them and of
the weights, which is what lets ``tuning`` sweep thousands of weight settings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolkit.embeddings import Embedder, similarity_floor
from toolkit.evaluate.metrics import METRICS, evaluate_ranking
from toolkit.evaluate.rankers import bm25_scores, dense_scores, hybrid_signals, ranking, rrf_scores
from toolkit.evaluate.results import METHODS, Results
from toolkit.evaluate.retrieval import DEV_DIR, RetrievalSet, load_set
from toolkit.search.scorer import Signals, fuse
from toolkit.search.signals import FloatVector, semantic, short_factor
from toolkit.search.textcache import TextCache
from toolkit.weights import SearchWeights


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """What every method needs of one query, computed once."""

    candidate_ids: tuple[str, ...]
    relevant: frozenset[str]
    bm25: FloatVector
    dense: FloatVector
    signals: Signals
    lengths: npt.NDArray[np.int64]
    semantic_floor: float


def prepare(
    rset: RetrievalSet,
    *,
    semantic_floor: float,
    weights: SearchWeights | None = None,
    cache: TextCache | None = None,
) -> list[PreparedQuery]:
    """Score every query of a set with BM25, cosines and the four signals.

    Args:
        rset: a loaded set with its vectors.
        semantic_floor: the embedder's similarity floor (``embeddings.similarity_floor``).
        weights: the short factor's shape for the stored signals (others are recomputed).
        cache: term cache (a fresh one by default).
    """
    weights = weights if weights is not None else SearchWeights()
    cache = cache if cache is not None else TextCache()
    prepared = []
    for row, query in enumerate(rset.queries):
        cosines = dense_scores(rset.query_vectors[row], rset.pool_vectors(query))
        signals, lengths = hybrid_signals(
            query.query,
            query.candidate_texts,
            cosines,
            cache=cache,
            weights=weights,
            semantic_floor=semantic_floor,
        )
        prepared.append(
            PreparedQuery(
                candidate_ids=query.candidate_ids,
                relevant=query.relevant,
                bm25=bm25_scores(query.query, query.candidate_texts),
                dense=cosines,
                signals=signals,
                lengths=lengths,
                semantic_floor=semantic_floor,
            )
        )
    return prepared


Prepared = dict[str, list[PreparedQuery]]
"""Prepared queries per dev set name."""


def prepare_sets(
    embedder: Embedder,
    names: Iterable[str],
    *,
    cache_dir: Path,
    limits: Mapping[str, int | None] | None = None,
    dev_dir: Path = DEV_DIR,
) -> Prepared:
    """Load dev retrieval sets (vectors cached under ``cache_dir``) and ``prepare`` them.

    Args:
        embedder: the model whose vectors to use.
        names: the sets (``retrieval.DEV_FILES``, or the cross-language
            ``retrieval.CROSS_SETS``).
        cache_dir: where ``load_set`` caches the vectors.
        limits: the first N queries of a set (a subsample; ``None``: every query).
        dev_dir: folder of the dev files.
    """
    limits = limits or {}
    floor = similarity_floor(embedder)
    prepared = {}
    for name in names:
        limit = limits.get(name)
        rset = load_set(name, embedder, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
        prepared[name] = prepare(rset, semantic_floor=floor)
    return prepared


def reshape(query: PreparedQuery, weights: SearchWeights) -> Signals:
    """The query's signals with the semantic map and short factor of ``weights``
    (lexical coverage and phrase match do not depend on the weights)."""
    return dataclasses.replace(
        query.signals,
        semantic=semantic(
            query.dense, floor=query.semantic_floor, exponent=weights.semantic_exponent
        ),
        short_factor=short_factor(
            query.lengths, floor=weights.short_floor, scale=weights.short_scale
        ),
    )


def method_scores(query: PreparedQuery, method: str, weights: SearchWeights) -> FloatVector:
    """One method's scores of a query's pool."""
    if method == "BM25":
        return query.bm25
    if method == "dense":
        return query.dense
    if method == "RRF":
        return rrf_scores(query.bm25, query.dense)
    if method == "hybrid":
        return fuse(reshape(query, weights), weights)
    raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def mean_metrics(
    queries: Iterable[PreparedQuery], method: str, weights: SearchWeights
) -> dict[str, float]:
    """Mean of every metric over the queries, for one method."""
    totals = dict.fromkeys(METRICS, 0.0)
    count = 0
    for query in queries:
        order = ranking(method_scores(query, method, weights))
        ranked = [query.candidate_ids[i] for i in order]
        for name, value in evaluate_ranking(ranked, query.relevant).items():
            totals[name] += value
        count += 1
    return {name: total / max(count, 1) for name, total in totals.items()}


def compare(
    prepared: Mapping[str, list[PreparedQuery]],
    weights: SearchWeights,
    methods: Iterable[str] = METHODS,
) -> Results:
    """Every method on every prepared set: ``results[method][set][metric]``."""
    return {
        method: {name: mean_metrics(queries, method, weights) for name, queries in prepared.items()}
        for method in methods
    }


__all__ = [
    "METHODS",
    "Prepared",
    "PreparedQuery",
    "Results",
    "compare",
    "mean_metrics",
    "method_scores",
    "prepare",
    "prepare_sets",
]
