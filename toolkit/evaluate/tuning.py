"""Choose the default ``SearchWeights`` on the dev sets: a small grid search.

``python -m toolkit.evaluate.tuning`` prints the best settings. The criterion is the
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

import argparse
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

from toolkit.evaluate.compare import PreparedQuery, mean_metrics
from toolkit.search.scorer import Signals, fuse
from toolkit.search.signals import semantic, short_factor
from toolkit.search.weights import SearchWeights

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


@dataclass(frozen=True, slots=True)
class Candidate:
    """One weight setting with its nDCG@10 per set and its margins over the baselines."""

    weights: SearchWeights
    ndcg: dict[str, float]
    margins: dict[str, float]

    @property
    def key(self) -> tuple[float, float]:
        """Sort key: worst margin first, then the mean nDCG@10."""
        return (min(self.margins.values()), float(np.mean(list(self.ndcg.values()))))


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


def baseline_best(prepared: Mapping[str, Sequence[PreparedQuery]]) -> dict[str, float]:
    """The best baseline nDCG@10 on each set (weights do not affect baselines)."""
    default = SearchWeights()
    return {
        name: max(mean_metrics(queries, m, default)[METRIC] for m in ("BM25", "dense", "RRF"))
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


def candidates_table(ranked: Sequence[Candidate], names: Sequence[str]) -> Table:
    """The best settings as a rich table."""
    table = Table(title=f"Best weights by worst-set margin of {METRIC} over the best baseline")
    for column in ("sem", "lex", "phrase", "exp", "floor", "scale", *names, "min margin"):
        table.add_column(column, justify="right")
    for c in ranked:
        w = c.weights
        shape = (w.semantic, w.lexical, w.phrase, w.semantic_exponent, w.short_floor, w.short_scale)
        table.add_row(
            *(f"{v:g}" for v in shape),
            *(f"{c.ndcg[n]:.4f}" for n in names),
            f"{c.key[0]:+.4f}",
        )
    return table


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m toolkit.evaluate.tuning``."""
    from pathlib import Path

    from toolkit.config import Settings
    from toolkit.embeddings import get_embedder, similarity_floor
    from toolkit.evaluate.compare import prepare
    from toolkit.evaluate.retrieval import DEV_DIR, DEV_FILES, load_set

    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate.tuning")
    parser.add_argument("--dev-dir", type=Path, default=DEV_DIR, help="folder of the dev files")
    parser.add_argument("--step", type=float, default=STEP, help="grid step of the weights")
    parser.add_argument("--top", type=int, default=10, help="settings to show")
    args = parser.parse_args(argv)
    settings = Settings()
    embedder = get_embedder(settings)
    prepared = {
        name: prepare(
            load_set(name, embedder, dev_dir=args.dev_dir, cache_dir=settings.data_dir / "cache"),
            semantic_floor=similarity_floor(embedder),
        )
        for name in DEV_FILES
    }
    ranked = search_grid(prepared, weight_grid(args.step))
    Console(width=160).print(candidates_table(ranked[: args.top], list(DEV_FILES)))


if __name__ == "__main__":
    main()
