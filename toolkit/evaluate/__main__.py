"""``python -m toolkit.evaluate`` (``make eval``): the ranking table on the dev sets.

Rows are methods (BM25, dense, RRF, hybrid), columns each dev file × metric. The
hybrid uses the configured weights: ``SearchWeights`` defaults unless ``MLENS_SEARCH__*``
or ``MLENS_WEIGHTS_FILE`` say otherwise.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from toolkit.config import Settings
from toolkit.embeddings import get_embedder, similarity_floor
from toolkit.evaluate.compare import METHODS, Results, compare, prepare
from toolkit.evaluate.metrics import METRICS
from toolkit.evaluate.retrieval import DEV_DIR, DEV_FILES, load_set
from toolkit.evaluate.summaries import run_summaries
from toolkit.search.weights import SearchWeights


def results_table(results: Results, sets: list[str], *, title: str) -> Table:
    """A rich table: one row per method, one column per set × metric; best in bold."""
    table = Table(title=title, show_lines=False)
    table.add_column("method")
    for name in sets:
        for metric in METRICS:
            table.add_column(f"{name}\n{metric}", justify="right")
    best = {
        (name, metric): max(results[m][name][metric] for m in results)
        for name in sets
        for metric in METRICS
    }
    for method, per_set in results.items():
        cells = []
        for name in sets:
            for metric in METRICS:
                value = per_set[name][metric]
                text = f"{value:.3f}"
                cells.append(f"[bold]{text}[/]" if value == best[(name, metric)] else text)
        table.add_row(method, *cells)
    return table


def hybrid_verdict(results: Results, sets: list[str], metric: str = "nDCG@10") -> list[str]:
    """One line per set: does the hybrid beat every baseline on ``metric``?"""
    lines = []
    for name in sets:
        hybrid = results["hybrid"][name][metric]
        rival = max((results[m][name][metric], m) for m in results if m != "hybrid")
        verdict = "PASS" if hybrid > rival[0] else "FAIL"
        lines.append(
            f"{verdict} {name}: hybrid {metric} {hybrid:.3f} vs best baseline "
            f"{rival[1]} {rival[0]:.3f} ({hybrid - rival[0]:+.3f})"
        )
    return lines


def run_retrieval(
    console: Console,
    settings: Settings,
    *,
    dev_dir: Path = DEV_DIR,
    limit: int | None = None,
    weights: SearchWeights | None = None,
) -> Results:
    """Load (and embed, first time) the dev sets, run every method, print the table."""
    embedder = get_embedder(settings)
    weights = weights if weights is not None else settings.search
    cache_dir = settings.data_dir / "cache"
    started = time.perf_counter()
    prepared = {
        name: prepare(
            load_set(name, embedder, dev_dir=dev_dir, cache_dir=cache_dir, limit=limit),
            semantic_floor=similarity_floor(embedder),
            weights=weights,
        )
        for name in DEV_FILES
    }
    results = compare(prepared, weights, METHODS)
    elapsed = time.perf_counter() - started
    console.print(
        results_table(
            results, list(DEV_FILES), title=f"Retrieval on the dev sets ({embedder.model_name})"
        )
    )
    console.print(f"hybrid weights: {weights.model_dump()}")
    for line in hybrid_verdict(results, list(DEV_FILES)):
        console.print(line, highlight=False)
    console.print(f"({elapsed:.1f} s including loading and any first-run embedding)")
    return results


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m toolkit.evaluate``."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate", description=__doc__)
    parser.add_argument("--dev-dir", type=Path, default=DEV_DIR, help="folder of the dev files")
    parser.add_argument("--limit", type=int, default=None, help="first N queries per file")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 160))
    settings = Settings()
    run_retrieval(console, settings, dev_dir=args.dev_dir, limit=args.limit)
    run_summaries(console, settings)


if __name__ == "__main__":
    main()
