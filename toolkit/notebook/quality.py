"""Evaluation results as tables: ranking quality, ablation, weight settings, ROUGE.

The numbers come from ``toolkit.evaluate`` (plain results and rows); each table here is
built once and shown everywhere: ``make eval`` prints it (rich), the notebooks show it
(HTML), the app's Evaluation page draws it (``Table.styled``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.evaluate.metrics import METRICS
from toolkit.evaluate.results import (
    OUTPUT_COLUMNS,
    ROUGE_TYPES,
    Candidate,
    Results,
    candidate_rows,
    result_rows,
    wide_rows,
)
from toolkit.notebook.table import Table
from toolkit.weights import SearchWeights

if TYPE_CHECKING:
    from toolkit.evaluate.claims import Evidence

METRIC_NAMES = tuple(METRICS)
"""``("nDCG@10", "MRR@10", "Recall@20")``: the ranking metrics, in table order."""
ROUGE_COLUMNS = ["system", "k", "n", *ROUGE_TYPES]


def results_table(results: Results, *, title: str = "Ranking quality") -> Table:
    """``compare`` results as long rows: method, set, language, each metric's mean."""
    columns = ["method", "set", "language", *METRIC_NAMES]
    return Table(result_rows(results), columns=columns, title=title)


def ranking_table(long: Table | Iterable[Mapping[str, Any]], *, key: str = "method") -> Table:
    """The ranking table of the docs from long rows (``results_table``, ``ablation_table``):
    one row per method (or variant), one column per set × metric, best values bold."""
    rows = wide_rows(long, key=key)
    columns = [c for c in (rows[0] if rows else {}) if c != key]
    title = long.title if isinstance(long, Table) else None
    return Table(rows, columns=[key, *columns], title=title, best=columns, digits=3)


def ablation_table(results: Results) -> Table:
    """``evaluate.ablation`` results as long rows: variant, set, language, each metric."""
    columns = ["variant", "set", "language", *METRIC_NAMES]
    rows = result_rows(results, key="variant")
    return Table(rows, columns=columns, title="Ablation of the hybrid's signals")


def candidates_table(
    candidates: Sequence[Candidate], *, title: str = "nDCG@10 of the hybrid per weight setting"
) -> Table:
    """Weight settings scored by ``tuning.search_grid``, in order: the five weights,
    nDCG@10 on each set, its mean, and the worst margin over the best baseline."""
    names = list(candidates[0].ndcg) if candidates else []
    columns = [*SearchWeights.model_fields, *names, "mean", "min_margin"]
    return Table(candidate_rows(candidates), columns=columns, title=title, best=names)


def rouge_table(rows: Sequence[Mapping[str, Any]], *, title: str) -> Table:
    """``summaries.evaluate_summaries`` rows: one per system and k, best ROUGE bold."""
    return Table(rows, columns=ROUGE_COLUMNS, title=title, best=ROUGE_TYPES)


def rouge_comparison_table(rows: Sequence[Mapping[str, Any]], *, title: str) -> Table:
    """``make eval``'s summary rows (``claims.summaries.comparison_rows``, also published):
    ROUGE × 100 per system, and each baseline's ROUGE-L difference to the engine with its
    bootstrap interval, as text (``+4.18 [+1.96, +6.57]``; empty on the engine's row)."""
    delta = "ΔL [95 % CI]"
    shown = [
        {
            **{c: row.get(c) for c in ROUGE_COLUMNS},
            delta: (
                f"{row['ΔL']:+.2f} [{row['ΔL low']:+.2f}, {row['ΔL high']:+.2f}]"
                if row.get("ΔL") is not None
                else ""
            ),
        }
        for row in rows
    ]
    return Table(shown, columns=[*ROUGE_COLUMNS, delta], title=title, best=ROUGE_TYPES, digits=2)


def summary_outputs_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """``summary_outputs`` rows: every system's summary of every dialogue."""
    return Table(rows, columns=OUTPUT_COLUMNS, title="Summaries per dialogue and system")


def evidence_table(evidence: Evidence) -> Table:
    """A claim's evidence (``make eval``) as a table."""
    return Table(
        evidence.rows,
        columns=evidence.columns,
        title=evidence.title,
        best=evidence.best,
        digits=evidence.digits,
    )
