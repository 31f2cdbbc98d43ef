"""Evaluation results as tables, for the notebooks and the app's Evaluation page.

A thin layer over ``toolkit.evaluate``: it loads and prepares the dev sets with their
functions, runs their comparison and tuning grid, and lays the numbers out as ``Table``
rows (one row per method × set, with the set's language; one per weight setting; one
per dialogue × summary system), which pandas pivots and plots directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.embeddings import Embedder, similarity_floor
from toolkit.frames import Table
from toolkit.search.weights import SearchWeights

if TYPE_CHECKING:
    from toolkit.embeddings import Matrix
    from toolkit.evaluate.compare import PreparedQuery, Results
    from toolkit.evaluate.summaries import Dialogue
    from toolkit.evaluate.tuning import Candidate

Prepared = dict[str, list["PreparedQuery"]]
Limit = int | Mapping[str, int | None] | None
"""A subsample: the first N queries of every set, or per set name (``None``: all)."""
METRIC_NAMES = ("nDCG@10", "MRR@10", "Recall@20")


def language_of(set_name: str) -> str:
    """The language of a dev set from its name (``ru_xquad`` → ``ru``)."""
    return set_name.split("_", 1)[0]


def prepare_sets(
    embedder: Embedder,
    names: Iterable[str],
    *,
    cache_dir: Path,
    limits: Mapping[str, int | None] | None = None,
    dev_dir: Path | None = None,
) -> Prepared:
    """Load the dev retrieval sets (vectors cached under ``cache_dir``) and prepare them.

    Args:
        embedder: the model whose vectors to use.
        names: the sets (``toolkit.evaluate.retrieval.DEV_FILES``).
        cache_dir: where ``load_set`` caches the vectors.
        limits: the first N queries of a set (a subsample; ``None``: every query).
        dev_dir: folder of the dev files (default: ``../shared/data/eval/dev``).
    """
    from toolkit.evaluate.compare import prepare
    from toolkit.evaluate.retrieval import DEV_DIR, load_set

    limits = limits or {}
    floor = similarity_floor(embedder)
    return {
        name: prepare(
            load_set(
                name,
                embedder,
                dev_dir=dev_dir or DEV_DIR,
                cache_dir=cache_dir,
                limit=limits.get(name),
            ),
            semantic_floor=floor,
        )
        for name in names
    }


def results_table(results: Results, *, title: str = "Ranking quality") -> Table:
    """``compare`` results as rows: method, set, language, queries' mean of each metric."""
    rows = [
        {"method": method, "set": name, "language": language_of(name), **metrics}
        for method, per_set in results.items()
        for name, metrics in per_set.items()
    ]
    return Table(rows, columns=["method", "set", "language", *METRIC_NAMES], title=title)


def compare_table(
    prepared: Prepared, weights: SearchWeights, methods: Sequence[str] | None = None
) -> Table:
    """BM25, dense, RRF and the hybrid (with ``weights``) on every prepared set."""
    from toolkit.evaluate.compare import METHODS, compare

    results = compare(prepared, weights, methods or METHODS)
    return results_table(results, title=f"Ranking quality, hybrid weights {weights.model_dump()}")


def ablation_variants(weights: SearchWeights) -> dict[str, SearchWeights]:
    """The hybrid with each part taken out in turn (a signal's weight, or the short factor).

    A variant that would leave no weight at all is skipped.
    """
    variants = {"hybrid (all signals)": weights}
    for name in ("semantic", "lexical", "phrase"):
        others = {"semantic", "lexical", "phrase"} - {name}
        if any(getattr(weights, other) > 0 for other in others):
            variants[f"without {name}"] = weights.replace(**{name: 0.0})
    variants["without short factor"] = weights.replace(short_floor=1.0)
    return variants


def ablation_table(prepared: Prepared, weights: SearchWeights) -> Table:
    """nDCG@10 (and the other metrics) of the hybrid with each signal removed in turn."""
    from toolkit.evaluate.compare import mean_metrics

    rows: list[dict[str, Any]] = []
    for variant, changed in ablation_variants(weights).items():
        for name, queries in prepared.items():
            metrics = mean_metrics(queries, "hybrid", changed)
            rows.append({"variant": variant, "set": name, "language": language_of(name), **metrics})
    columns = ["variant", "set", "language", *METRIC_NAMES]
    return Table(rows, columns=columns, title="Ablation of the hybrid's signals")


def simplex_points(step: float, base: SearchWeights) -> list[SearchWeights]:
    """Every (semantic, lexical, phrase) with coordinates in multiples of ``step`` summing
    to 1 (the all-zero corner excluded), with ``base``'s short-factor shape."""
    n = round(1 / step)
    return [
        base.replace(semantic=i / n, lexical=j / n, phrase=(n - i - j) / n)
        for i in range(n + 1)
        for j in range(n + 1 - i)
    ]


def candidates_table(candidates: Sequence[Candidate]) -> Table:
    """Weight settings scored by ``tuning.search_grid``, best first: the five weights,
    nDCG@10 on each set, its mean, and the worst margin over the best baseline."""
    names = list(candidates[0].ndcg) if candidates else []
    rows = [
        {
            **c.weights.model_dump(),
            **c.ndcg,
            "mean": sum(c.ndcg.values()) / len(c.ndcg),
            "min_margin": min(c.margins.values()),
        }
        for c in candidates
    ]
    columns = [*SearchWeights.model_fields, *names, "mean", "min_margin"]
    return Table(rows, columns=columns, title="nDCG@10 of the hybrid per weight setting")


def simplex_means(
    grid: Table, column: str = "mean"
) -> tuple[list[tuple[float, float, float]], list[float]]:
    """The (semantic, lexical, phrase) points of a ``candidates_table`` and their
    ``column`` (the best where several short-factor shapes share a point), ready for
    ``plots.simplex_heatmap``."""
    best: dict[tuple[float, float, float], float] = {}
    for row in grid:
        point = (row["semantic"], row["lexical"], row["phrase"])
        best[point] = max(best.get(point, float("-inf")), row[column])
    return list(best), list(best.values())


def summary_outputs(dialogues: Sequence[Dialogue], vectors: Matrix, *, k: int = 2) -> Table:
    """Every system's summary of every dialogue, with its length and ROUGE F1.

    Systems: the extractive engine, the first ``k`` messages, LexRank and TextRank
    picking ``k`` messages (the baselines of ``evaluate.summaries``), and the reference
    itself (length only). One row per dialogue and system.
    """
    from toolkit.evaluate.summaries import extractive_summary, first_k, rouge_scores, sumy_pick

    rows: list[dict[str, Any]] = []
    offset = 0
    for dialogue in dialogues:
        turns = vectors[offset : offset + len(dialogue.messages)]
        offset += len(dialogue.messages)
        outputs = {
            "extractive": extractive_summary(dialogue, turns),
            f"first-{k}": first_k(dialogue.messages, k),
            f"lexrank-{k}": sumy_pick(dialogue.messages, k, "lexrank"),
            f"textrank-{k}": sumy_pick(dialogue.messages, k, "textrank"),
        }
        base = {"dialogue": dialogue.id, "turns": len(dialogue.messages)}
        for system, text in outputs.items():
            scores = rouge_scores(dialogue.references, text)
            rows.append(
                {**base, "system": system, "words": len(text.split()), **scores, "text": text}
            )
        reference = dialogue.references[0]
        rows.append(
            {**base, "system": "reference", "words": len(reference.split()), "text": reference}
        )
    columns = ["dialogue", "turns", "system", "words", "rouge1", "rouge2", "rougeL", "text"]
    return Table(rows, columns=columns, title="Summaries per dialogue and system")
