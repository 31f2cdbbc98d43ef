"""What the ranking evaluation produces, and its results laid out as rows.

Light on purpose (no numpy, no models): the notebook layer imports it to build its
tables without loading the evaluation's machinery.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.evaluate.metrics import METRICS

if TYPE_CHECKING:
    from toolkit.weights import SearchWeights

METHODS = ("BM25", "dense", "RRF", "hybrid")
"""Rows of the evaluation table: three baselines, then the search's own ranking."""
BASELINES = METHODS[:3]
"""The methods the hybrid is measured against."""

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
"""The ROUGE F1 scores of a summary, as ``summaries.rouge_scores`` names them."""
OUTPUT_COLUMNS = ("dialogue", "turns", "system", "words", *ROUGE_TYPES, "text")
"""The columns of ``summary_outputs.summary_outputs`` rows."""

Results = dict[str, dict[str, dict[str, float]]]
"""``results[method][set name][metric]``: mean over the set's queries."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One weight setting scored by ``tuning.search_grid``: its nDCG@10 per set and its
    margins over the best baseline of each set."""

    weights: SearchWeights
    ndcg: dict[str, float]
    margins: dict[str, float]

    @property
    def key(self) -> tuple[float, float]:
        """Sort key: worst margin first, then the mean nDCG@10."""
        return (min(self.margins.values()), sum(self.ndcg.values()) / len(self.ndcg))


def language_of(set_name: str) -> str:
    """The language of a dev set from its name (``ru_xquad`` → ``ru``)."""
    return set_name.split("_", 1)[0]


def result_rows(results: Results, *, key: str = "method") -> list[dict[str, Any]]:
    """Results as long rows: ``key`` (method or variant), set, language, each metric."""
    return [
        {key: row, "set": name, "language": language_of(name), **metrics}
        for row, per_set in results.items()
        for name, metrics in per_set.items()
    ]


def wide_rows(rows: Iterable[Mapping[str, Any]], *, key: str = "method") -> list[dict[str, Any]]:
    """Long rows (``result_rows``) as the docs' ranking table: one row per ``key``,
    one column per set and metric (``"ru_xquad nDCG@10"``), sets in first-seen order."""
    wide: dict[str, dict[str, Any]] = {}
    for row in rows:
        target = wide.setdefault(row[key], {key: row[key]})
        target.update({f"{row['set']} {metric}": row[metric] for metric in METRICS})
    return list(wide.values())


def candidate_rows(candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
    """Weight settings scored by ``tuning.search_grid`` as rows, in order: the weights,
    nDCG@10 on each set, its mean, and the worst margin over the best baseline."""
    return [
        {
            **c.weights.model_dump(),
            **c.ndcg,
            "mean": sum(c.ndcg.values()) / len(c.ndcg),
            "min_margin": min(c.margins.values()),
        }
        for c in candidates
    ]
