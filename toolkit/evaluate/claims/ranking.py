"""The README's ranking claims: the hybrid is at least as good as every baseline on
every dev set, and the README's ranking table shows what the code measures."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.compare import Prepared, compare, prepare_sets
from toolkit.evaluate.metrics import METRICS
from toolkit.evaluate.results import BASELINES, Results, result_rows, wide_rows
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.weights import SearchWeights

README = Path(__file__).resolve().parents[3] / "README.md"
HEADING = "### Ranking quality"
TOLERANCE = 0.001
"""How far a measured value may be from the README's (printed with 3 decimals)."""
_METHOD_BY_WORD = {"bm25": "BM25", "dense": "dense", "rrf": "RRF", "hybrid": "hybrid"}


def prepared_sets(run: Run) -> Prepared:
    """The four dev sets, prepared once per run (subsampled by ``run.limit``)."""
    return run.measure(
        "prepared",
        lambda: prepare_sets(
            run.embedder,
            DEV_FILES,
            cache_dir=run.cache_dir,
            limits=dict.fromkeys(DEV_FILES, run.limit),
            dev_dir=run.dev_dir,
        ),
    )


def ranking_results(run: Run, weights: SearchWeights) -> Results:
    """Every method on every dev set, the hybrid with ``weights`` (once per run)."""
    return run.measure(f"ranking {weights!r}", lambda: compare(prepared_sets(run), weights))


def ranking_evidence(results: Results, *, title: str) -> Evidence:
    """The README's ranking table: a row per method, a column per set × metric."""
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
    weights = run.settings.search
    results = ranking_results(run, weights)
    title = f"Retrieval on the dev sets ({run.embedder.model_name})"
    return Finding(
        "hybrid ≥ every baseline (nDCG@10) on every dev set",
        hybrid_margins(results),
        [ranking_evidence(results, title=title)],
        notes=[f"hybrid weights: {weights.model_dump()}"],
    )


def readme_ranking(text: str) -> Results:
    """The first table under the README's ``### Ranking quality`` heading.

    Each cell reads ``nDCG@10 / MRR@10 / Recall@20``; a row is named by its first
    word (``dense only`` → ``dense``, ``**hybrid (defaults)**`` → ``hybrid``).
    """
    section = text.split(HEADING, 1)[1] if HEADING in text else ""
    lines = list(
        itertools.takewhile(
            lambda line: line.startswith("|"),
            itertools.dropwhile(lambda line: not line.startswith("|"), section.splitlines()),
        )
    )
    if len(lines) < 3:
        return {}
    sets = [cell.strip() for cell in lines[0].strip("|").split("|")[1:]]
    table: Results = {}
    for line in lines[2:]:
        label, *cells = (cell.replace("*", "").strip() for cell in line.strip("|").split("|"))
        method = _METHOD_BY_WORD.get(label.split()[0].lower(), label)
        table[method] = {
            name: dict(zip(METRICS, map(float, re.split(r"\s*/\s*", cell)), strict=True))
            for name, cell in zip(sets, cells, strict=True)
        }
    return table


def _mismatches(measured: Results, method: str, stated: dict[str, dict[str, float]]) -> list[str]:
    found = []
    for name, metrics in stated.items():
        for metric, value in metrics.items():
            got = measured.get(method, {}).get(name, {}).get(metric)
            if got is None or abs(got - value) > TOLERANCE:
                shown = "nothing" if got is None else f"{got:.4f}"
                found.append(f"{name} {metric}: README {value:.3f}, measured {shown}")
    return found


def compare_with_readme(measured: Results, stated: Results) -> list[Verdict]:
    """One verdict per README row: every stated value within ``TOLERANCE`` of the measure."""
    if not stated:
        return [Verdict(False, f"no ranking table under {HEADING!r} in the README")]
    verdicts = []
    for method, per_set in stated.items():
        off = _mismatches(measured, method, per_set)
        message = "; ".join(off) if off else f"every value within ±{TOLERANCE} of the measure"
        verdicts.append(Verdict(not off, f"README row {method}: {message}"))
    return verdicts


def readme_table_holds(run: Run) -> Finding:
    """The README's ranking table (default weights, every query) is what the code measures."""
    claim = "README ranking table = measured (default weights)"
    if run.limit is not None:
        return Finding(claim, [Verdict(None, "the README's numbers use every query")])
    if not README.is_file():
        return Finding(claim, [Verdict(False, f"{README} not found")])
    stated = readme_ranking(README.read_text(encoding="utf-8"))
    return Finding(claim, compare_with_readme(ranking_results(run, SearchWeights()), stated))


__all__ = [
    "compare_with_readme",
    "hybrid_beats_baselines",
    "hybrid_margins",
    "prepared_sets",
    "ranking_evidence",
    "ranking_results",
    "readme_ranking",
    "readme_table_holds",
]
