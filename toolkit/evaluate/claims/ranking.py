"""The ranking claims: the hybrid is at least as good as every baseline on every dev
set, and the published ranking table (``docs/results/eval.json``, which the README and
``docs/evaluation.md`` show) is what the code measures."""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.compare import Prepared, compare, prepare_sets
from toolkit.evaluate.metrics import METRICS
from toolkit.evaluate.published import RESULTS_FILE, read_published
from toolkit.evaluate.results import BASELINES, Results, result_rows, wide_rows
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.weights import SearchWeights

TOLERANCE = 0.001
"""How far a measured value may be from the published one (shown with 3 decimals)."""


def prepared_of(run: Run, names: Iterable[str], label: str = "") -> Prepared:
    """The sets ``names``, prepared once per run (subsampled by ``run.limit``).

    Args:
        run: the evaluation run (its embedder, cache and measurements).
        names: the sets (``DEV_FILES``, or the cross-language ``CROSS_SETS``).
        label: what tells these sets apart in the run's measurements (``"cross "``).
    """
    names = tuple(names)
    return run.measure(
        f"{label}prepared",
        lambda: prepare_sets(
            run.embedder,
            names,
            cache_dir=run.cache_dir,
            limits=dict.fromkeys(names, run.limit),
            dev_dir=run.dev_dir,
        ),
    )


def results_of(run: Run, names: Iterable[str], weights: SearchWeights, label: str = "") -> Results:
    """Every method on the sets ``names`` (``prepared_of``), the hybrid with ``weights``
    (once per run)."""
    names = tuple(names)
    return run.measure(
        f"{label}ranking {weights!r}", lambda: compare(prepared_of(run, names, label), weights)
    )


def prepared_sets(run: Run) -> Prepared:
    """The four dev sets, prepared once per run (subsampled by ``run.limit``)."""
    return prepared_of(run, DEV_FILES)


def ranking_results(run: Run, weights: SearchWeights) -> Results:
    """Every method on every dev set, the hybrid with ``weights`` (once per run)."""
    return results_of(run, DEV_FILES, weights)


def ranking_evidence(results: Results, *, title: str) -> Evidence:
    """The ranking table: a row per method, a column per set × metric."""
    sets = list(next(iter(results.values())))
    columns = [f"{name} {metric}" for name in sets for metric in METRICS]
    rows = wide_rows(result_rows(results))
    return Evidence(title, rows, ["method", *columns], best=columns)


def hybrid_margins(results: Results, metric: str = "nDCG@10") -> list[Verdict]:
    """One verdict per set: is the hybrid's ``metric`` ≥ every baseline's?"""
    verdicts = []
    for name in results["hybrid"]:
        hybrid = results["hybrid"][name][metric]
        rival, method = max((results[m][name][metric], m) for m in BASELINES if m in results)
        verdicts.append(
            Verdict(
                hybrid >= rival,
                f"{name}: hybrid {metric} {hybrid:.3f} vs best baseline {method} "
                f"{rival:.3f} ({hybrid - rival:+.3f})",
            )
        )
    return verdicts


def hybrid_beats_baselines(run: Run) -> Finding:
    """Hybrid (configured weights) ≥ BM25, dense and RRF in nDCG@10 on every dev set."""
    weights = run.settings.search.weights
    results = ranking_results(run, weights)
    title = f"Retrieval on the dev sets ({run.embedder.model_name})"
    return Finding(
        "hybrid ≥ every baseline (nDCG@10) on every dev set",
        hybrid_margins(results),
        [ranking_evidence(results, title=title)],
        notes=[f"hybrid weights: {weights.model_dump()}"],
    )


def _mismatches(measured: Results, method: str, stated: dict[str, dict[str, float]]) -> list[str]:
    found = []
    for name, metrics in stated.items():
        for metric, value in metrics.items():
            got = measured.get(method, {}).get(name, {}).get(metric)
            if got is None or abs(got - value) > TOLERANCE:
                shown = "nothing" if got is None else f"{got:.4f}"
                found.append(f"{name} {metric}: published {value:.4f}, measured {shown}")
    return found


def compare_with_published(measured: Results, stated: Results) -> list[Verdict]:
    """One verdict per published method: every value within ``TOLERANCE`` of the measure."""
    if not stated:
        return [Verdict(False, f"no published ranking in {RESULTS_FILE.name}: run make eval")]
    verdicts = []
    for method, per_set in stated.items():
        off = _mismatches(measured, method, per_set)
        message = "; ".join(off) if off else f"every value within ±{TOLERANCE} of the measure"
        verdicts.append(Verdict(not off, f"published {method}: {message}"))
    return verdicts


def published_table_holds(run: Run) -> Finding:
    """The published ranking table (default weights, every query) is what the code measures.

    It reads ``run.results_file`` as it was before this run rewrites it: a number that
    moved fails the claim once, and the file then holds the new measurement.
    """
    claim = "published ranking table = measured (default weights)"
    if run.limit is not None:
        return Finding(claim, [Verdict(None, "the published numbers use every query")])
    stated = run.measure("published", lambda: read_published(run.results_file)).ranking
    return Finding(claim, compare_with_published(ranking_results(run, SearchWeights()), stated))


__all__ = [
    "compare_with_published",
    "hybrid_beats_baselines",
    "hybrid_margins",
    "prepared_of",
    "prepared_sets",
    "published_table_holds",
    "ranking_evidence",
    "ranking_results",
    "results_of",
]
