"""Choose the default ``SearchWeights`` on the dev sets: a small grid search.

``python -m toolkit.evaluate.tuning`` prints the best settings. The criterion is the
smallest margin, over the four dev sets, between the hybrid's nDCG@10 and the best
baseline's (BM25, dense or RRF) on that set; ties go to the higher mean nDCG@10. So
the chosen weights are the ones that beat every baseline everywhere by the widest
margin, not the ones that shine on one set. Only dev files are used: the held-out
test files never take part in a choice.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table

from toolkit.config import Settings
from toolkit.embeddings import get_embedder, similarity_floor
from toolkit.evaluate.compare import PreparedQuery, mean_metrics, prepare
from toolkit.evaluate.retrieval import DEV_DIR, DEV_FILES, load_set
from toolkit.search.weights import SearchWeights

METRIC = "nDCG@10"
STEP = 0.05
SHORT_FLOORS = (0.5, 0.7, 0.85, 1.0)
SHORT_SCALES = (1.0, 2.0, 4.0)


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
    """Every (semantic, lexical, phrase) on a simplex grid × every short-factor shape."""
    ticks = round(1 / step)
    for s, lex in itertools.product(range(ticks + 1), repeat=2):
        if s + lex > ticks or s == 0:
            continue
        for floor, scale in itertools.product(SHORT_FLOORS, SHORT_SCALES):
            yield SearchWeights(
                semantic=round(s * step, 4),
                lexical=round(lex * step, 4),
                phrase=round((ticks - s - lex) * step, 4),
                short_floor=floor,
                short_scale=scale,
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
    found = []
    for weights in tqdm(list(grid), desc="weights", unit="setting"):
        ndcg = {
            name: mean_metrics(queries, "hybrid", weights)[METRIC]
            for name, queries in prepared.items()
        }
        margins = {name: ndcg[name] - best[name] for name in ndcg}
        found.append(Candidate(weights, ndcg, margins))
    return sorted(found, key=lambda c: c.key, reverse=True)


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m toolkit.evaluate.tuning``."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate.tuning")
    parser.add_argument("--dev-dir", default=str(DEV_DIR), help="folder of the dev files")
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
    table = Table(title=f"Best weights by worst-set margin of {METRIC} over the best baseline")
    for column in ("sem", "lex", "phrase", "floor", "scale", *DEV_FILES, "min margin"):
        table.add_column(column, justify="right")
    for c in ranked[: args.top]:
        w = c.weights
        table.add_row(
            *(f"{v:g}" for v in (w.semantic, w.lexical, w.phrase, w.short_floor, w.short_scale)),
            *(f"{c.ndcg[n]:.4f}" for n in DEV_FILES),
            f"{c.key[0]:+.4f}",
        )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
