"""The cross-language claim: each language's XQuAD questions asked over the other
language's paragraphs (``retrieval.CROSS_SETS``), every method beside the hybrid, with
paired bootstrap intervals, and the same-language rows they are to be read against.

Verdicts: on each cross-language set the hybrid is at least as good as every baseline
(nDCG@10, as on the same-language sets), and within ``GAP`` of the same-language hybrid
on the same paragraphs (``ru-en_xquad`` against ``en_xquad``: Russian questions over
the English paragraphs, against the English questions over them).
"""

from __future__ import annotations

from typing import Any

from toolkit.evaluate.bootstrap import paired_bootstrap
from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.claims.ranking import (
    hybrid_margins,
    prepared_of,
    ranking_results,
    results_of,
)
from toolkit.evaluate.compare import Prepared, PreparedQuery, method_scores
from toolkit.evaluate.metrics import evaluate_ranking
from toolkit.evaluate.rankers import ranking
from toolkit.evaluate.results import BASELINES, METHODS, Results
from toolkit.evaluate.retrieval import CROSS_SETS
from toolkit.weights import SearchWeights

GAP = 0.05
"""How far below the same-language hybrid (nDCG@10) a cross-language set may be."""
SHOWN = ("nDCG@10", "MRR@10")
"""The metrics of the cross-language table."""


def cross_prepared(run: Run) -> Prepared:
    """The cross-language sets, prepared once per run (subsampled by ``run.limit``)."""
    return prepared_of(run, CROSS_SETS, "cross ")


def cross_results(run: Run, weights: SearchWeights) -> Results:
    """Every method on every cross-language set, the hybrid with ``weights`` (once per run)."""
    return results_of(run, CROSS_SETS, weights, "cross ")


def per_query(queries: list[PreparedQuery], method: str, weights: SearchWeights) -> list[float]:
    """One method's nDCG@10 of each query, in order (for the paired intervals)."""
    scores = []
    for query in queries:
        order = ranking(method_scores(query, method, weights))
        ranked = [query.candidate_ids[i] for i in order]
        scores.append(evaluate_ranking(ranked, query.relevant)["nDCG@10"])
    return scores


def cross_rows(
    prepared: Prepared, results: Results, weights: SearchWeights
) -> list[dict[str, Any]]:
    """One row per set and method: the metrics, and the hybrid's nDCG@10 gain over the
    method with its paired bootstrap 95 % interval (empty for the hybrid itself)."""
    rows = []
    for name, queries in prepared.items():
        hybrid = per_query(queries, "hybrid", weights)
        for method in METHODS:
            row: dict[str, Any] = {"set": name, "method": method}
            row.update({metric: results[method][name][metric] for metric in SHOWN})
            if method == "hybrid":
                row["hybrid − method [95 % CI]"] = ""
            else:
                gap = paired_bootstrap(hybrid, per_query(queries, method, weights))
                row["hybrid − method [95 % CI]"] = (
                    f"{gap.mean:+.3f} [{gap.low:+.3f}, {gap.high:+.3f}]"
                )
            rows.append(row)
    return rows


def same_language_peer(name: str) -> str:
    """The same-language set over the same paragraphs (``en-ru_xquad`` → ``ru_xquad``)."""
    return CROSS_SETS[name][1]


def gap_verdicts(cross: Results, same: Results, metric: str = "nDCG@10") -> list[Verdict]:
    """Per cross-language set: the hybrid within ``GAP`` of the same-language hybrid."""
    verdicts = []
    for name in cross["hybrid"]:
        peer = same_language_peer(name)
        across, within = cross["hybrid"][name][metric], same["hybrid"][peer][metric]
        verdicts.append(
            Verdict(
                across >= within - GAP,
                f"{name}: hybrid {metric} {across:.3f} vs {within:.3f} on {peer} "
                f"({across - within:+.3f}; allowed −{GAP})",
            )
        )
    return verdicts


def cross_language_holds(run: Run) -> Finding:
    """Cross-language XQuAD: hybrid ≥ every baseline and within ``GAP`` of same-language."""
    weights = run.settings.search.weights
    prepared = cross_prepared(run)
    results = cross_results(run, weights)
    same = ranking_results(run, weights)
    columns = ["set", "method", *SHOWN, "hybrid − method [95 % CI]"]
    table = Evidence(
        f"Cross-language retrieval (questions → other language's paragraphs; "
        f"{run.embedder.model_name})",
        cross_rows(prepared, results, weights),
        columns,
    )
    same_rows = [
        {"set": name, "method": method, **{m: same[method][name][m] for m in SHOWN}}
        for name in dict.fromkeys(same_language_peer(n) for n in CROSS_SETS)
        for method in METHODS
    ]
    beside = Evidence("The same-language rows over the same paragraphs", same_rows, columns[:4])
    counts = ", ".join(f"{name}: {len(q)} questions" for name, q in prepared.items())
    return Finding(
        "cross-language: hybrid ≥ every baseline and within .05 of the same language",
        [*hybrid_margins(results), *gap_verdicts(results, same)],
        [table, beside],
        notes=[counts, f"baselines: {', '.join(BASELINES)}"],
    )


__all__ = [
    "GAP",
    "cross_language_holds",
    "cross_prepared",
    "cross_results",
    "cross_rows",
    "gap_verdicts",
    "per_query",
    "same_language_peer",
]
