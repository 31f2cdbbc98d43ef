"""Choose the default ``SearchWeights`` on the dev sets: a small grid search.

``python -m toolkit.notebook.report --tune`` prints the best settings. The criterion is the
smallest margin, over the four dev sets, between the hybrid's nDCG@10 and the best
baseline's (BM25, dense or RRF) on that set; ties go to the higher mean nDCG@10. So
the chosen weights are the ones that beat every baseline everywhere by the widest
margin, not the ones that shine on one set. Only dev files take part: the held-out
test files never influence a choice.

To sweep thousands of settings quickly, each set's queries are packed into padded
``(queries, candidates)`` matrices and every setting is scored for all queries at once
with the search's own signal and fusion functions (they work elementwise).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toolkit.evaluate.compare import PreparedQuery, mean_metrics
from toolkit.evaluate.results import BASELINES, Candidate
from toolkit.search.scorer import Signals, fuse
from toolkit.search.signals import semantic, short_factor
from toolkit.weights import SearchWeights

METRIC = "nDCG@10"
STEP = 0.05
EXPONENTS = (1.0, 2.0, 3.0, 4.0)
SHORT_FLOORS = (0.5, 0.7, 0.85, 1.0)
SHORT_SCALES = (1.0, 2.0, 4.0)
Array = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PackedSet:
    """A set's queries as padded matrices (padding marked by ``valid == False``)."""

    cosines: Array
    lexical: Array
    phrase: Array
    lengths: Array
    relevant: npt.NDArray[np.bool_]
    valid: npt.NDArray[np.bool_]
    ideal_dcg: Array
    semantic_floor: float


def pack(queries: Sequence[PreparedQuery]) -> PackedSet:
    """Pack prepared queries into matrices."""
    width = max(len(q.candidate_ids) for q in queries)
    shape = (len(queries), width)
    arrays = {name: np.zeros(shape) for name in ("cosines", "lexical", "phrase", "lengths")}
    relevant = np.zeros(shape, dtype=np.bool_)
    valid = np.zeros(shape, dtype=np.bool_)
    for row, q in enumerate(queries):
        n = len(q.candidate_ids)
        arrays["cosines"][row, :n] = q.dense
        arrays["lexical"][row, :n] = q.signals.lexical
        arrays["phrase"][row, :n] = q.signals.phrase
        arrays["lengths"][row, :n] = q.lengths
        relevant[row, :n] = [c in q.relevant for c in q.candidate_ids]
        valid[row, :n] = True
    discounts = 1.0 / np.log2(np.arange(10) + 2)
    ideal = np.array([discounts[: min(int(k), 10)].sum() for k in relevant.sum(axis=1)])
    floor = queries[0].semantic_floor
    return PackedSet(
        **arrays, relevant=relevant, valid=valid, ideal_dcg=ideal, semantic_floor=floor
    )


def packed_ndcg(packed: PackedSet, weights: SearchWeights) -> float:
    """Mean nDCG@10 of the hybrid with ``weights`` over a packed set."""
    signals = Signals(
        semantic=semantic(
            packed.cosines, floor=packed.semantic_floor, exponent=weights.semantic_exponent
        ),
        lexical=packed.lexical,
        phrase=packed.phrase,
        short_factor=short_factor(
            packed.lengths, floor=weights.short_floor, scale=weights.short_scale
        ),
    )
    scores = np.where(packed.valid, fuse(signals, weights), -1.0)
    # A stable sort keeps pool order among equal scores, as ``rankers.ranking`` does.
    order = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    hits = np.take_along_axis(packed.relevant, order, axis=1)
    dcg = (hits / np.log2(np.arange(2, 12))).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_query = np.where(packed.ideal_dcg > 0, dcg / packed.ideal_dcg, 0.0)
    return float(per_query.mean())


def weight_grid(step: float = STEP) -> Iterable[SearchWeights]:
    """(semantic, lexical, phrase) on a simplex grid × semantic exponents × short shapes."""
    ticks = round(1 / step)
    shapes = itertools.product(EXPONENTS, SHORT_FLOORS, SHORT_SCALES)
    for exponent, floor, scale in shapes:
        for s, lex in itertools.product(range(1, ticks + 1), range(ticks + 1)):
            if s + lex <= ticks:
                yield SearchWeights(
                    semantic=round(s * step, 4),
                    lexical=round(lex * step, 4),
                    phrase=round((ticks - s - lex) * step, 4),
                    short_floor=floor,
                    short_scale=scale,
                    semantic_exponent=exponent,
                )


def simplex_points(step: float, base: SearchWeights) -> list[SearchWeights]:
    """Every (semantic, lexical, phrase) with coordinates in multiples of ``step`` summing
    to 1 (the all-zero corner excluded), with ``base``'s short-factor shape."""
    n = round(1 / step)
    return [
        base.replace(semantic=i / n, lexical=j / n, phrase=(n - i - j) / n)
        for i in range(n + 1)
        for j in range(n + 1 - i)
    ]


def baseline_best(prepared: Mapping[str, Sequence[PreparedQuery]]) -> dict[str, float]:
    """The best baseline nDCG@10 on each set (weights do not affect baselines)."""
    default = SearchWeights()
    return {
        name: max(mean_metrics(queries, m, default)[METRIC] for m in BASELINES)
        for name, queries in prepared.items()
    }


def search_grid(
    prepared: Mapping[str, Sequence[PreparedQuery]], grid: Iterable[SearchWeights]
) -> list[Candidate]:
    """Score every weight setting of ``grid``; best first."""
    from tqdm.auto import tqdm

    best = baseline_best(prepared)
    packed = {name: pack(queries) for name, queries in prepared.items()}
    found = []
    for weights in tqdm(list(grid), desc="weights", unit="setting"):
        ndcg = {name: packed_ndcg(p, weights) for name, p in packed.items()}
        found.append(Candidate(weights, ndcg, {n: ndcg[n] - best[n] for n in ndcg}))
    return sorted(found, key=lambda c: c.key, reverse=True)
