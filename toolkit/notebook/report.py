"""``python -m toolkit.notebook.report`` (``make eval``): the quality claims, checked and published.

Runs every claim of ``toolkit.evaluate.claims.CLAIMS`` (the hybrid against the
baselines, the published ranking table, the summary engine against its baselines, the
digest's sections on the labelled windows),
prints each one's tables and verdicts, and exits 1 when any claim fails. On the whole
dev sets (no ``--limit``) it then writes what it measured to ``docs/results/eval.json``
(``toolkit.evaluate.published``: the parts whose claims ran, with the nDCG@10 heat map
of the weight simplex), which the app's Evaluation page reads and
``scripts/gen_docs.py`` renders into the README and ``docs/``; ``--no-write`` leaves
the file alone. ``--tune``
runs the weight grid search instead and prints the best settings. Without the dev
files (``--dev-dir``, default ``../shared/data/eval/dev``) it exits 2 with one line
naming the folder or file it could not find.

The hybrid uses the configured weights: ``SearchWeights`` defaults unless
``MLENS_SEARCH__*`` or ``MLENS_WEIGHTS_FILE`` say otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from toolkit.config import Settings
from toolkit.evaluate.claims import CLAIMS, Finding, Run, run_claims
from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.evaluate.tuning import STEP
from toolkit.notebook.quality import candidates_table, evidence_table


def print_finding(console: Console, finding: Finding) -> None:
    """A claim's tables, notes and verdicts."""
    for evidence in finding.evidence:
        console.print(evidence_table(evidence))
    for note in finding.notes:
        console.print(note, highlight=False)
    for verdict in finding.verdicts:
        console.print(str(verdict), highlight=False)


def check_claims(
    console: Console, run: Run, *, only: str | None = None, write: bool = False
) -> int:
    """Check the claims (those whose name contains ``only``); 1 when any failed.

    With ``write`` (and no subsample) the measurements of the claims that ran are
    published to ``run.results_file`` afterwards, whatever the verdicts.
    """
    claims = [c for c in CLAIMS if only is None or only.lower() in c.name.lower()]
    started = time.perf_counter()
    findings = run_claims(claims, run)
    for finding in findings:
        print_finding(console, finding)
    failed = [f.claim for f in findings if f.failed]
    parts = {c.part for c in claims if c.part is not None}
    if write and run.limit is None and parts:
        path = publish(run, parts)
        console.print(f"wrote {', '.join(sorted(parts))} to {path}", highlight=False)
    elapsed = time.perf_counter() - started
    console.print(f"({elapsed:.1f} s including loading and any first-run embedding)")
    if failed:
        console.print(f"[bold red]{len(failed)} claim(s) failed:[/] {'; '.join(failed)}")
    return 1 if failed else 0


GRID_STEP = 0.1
"""Step of the published simplex grid (the heat map of the app and the docs)."""


def publish(run: Run, parts: set[str]) -> Path:
    """Write the measurements of ``parts`` (already made by the claims) to the results file."""
    from toolkit.evaluate.claims.candidates import candidate_measurements
    from toolkit.evaluate.claims.ranking import prepared_sets, ranking_results
    from toolkit.evaluate.claims.summaries import comparison_rows, set_scores
    from toolkit.evaluate.published import (
        candidates_part,
        ranking_part,
        summaries_part,
        write_published,
    )
    from toolkit.evaluate.results import candidate_rows
    from toolkit.evaluate.summaries import DEV_FILES as SUMMARY_FILES
    from toolkit.evaluate.tuning import search_grid, simplex_points
    from toolkit.weights import SearchWeights

    model = run.embedder.model_name
    written: dict[str, dict[str, Any]] = {}
    if "ranking" in parts:
        prepared = prepared_sets(run)
        grid = search_grid(prepared, simplex_points(GRID_STEP, SearchWeights()))
        written["ranking"] = ranking_part(
            ranking_results(run, SearchWeights()),
            grid=candidate_rows(grid),
            grid_step=GRID_STEP,
            queries={name: len(queries) for name, queries in prepared.items()},
            model_name=model,
        )
    if "candidates" in parts:
        written["candidates"] = candidates_part(candidate_measurements(run), model_name=model)
    if "summaries" in parts:
        rows = {name: comparison_rows(set_scores(run, name)) for name in SUMMARY_FILES}
        written["summaries"] = summaries_part(rows, model_name=model)
    if "digests" in parts:
        written["digests"] = _digests(run)
    return write_published(written, run.results_file)


def _digests(run: Run) -> dict[str, Any]:
    from toolkit.evaluate.claims.digests import calibration_summary, digest_measurement
    from toolkit.evaluate.digests.acts import rows
    from toolkit.evaluate.published import digests_part

    measured = digest_measurement(run)
    return digests_part(
        rows(measured.digests),
        calibration=calibration_summary(measured),
        windows=len({d.window.id for d in measured.digests}),
        model_name=run.embedder.model_name,
    )


def tune(console: Console, run: Run, *, step: float, top: int) -> None:
    """Score the tuning grid on the dev sets and print the ``top`` best settings."""
    from toolkit.evaluate.claims.ranking import prepared_sets
    from toolkit.evaluate.tuning import search_grid, weight_grid

    ranked = search_grid(prepared_sets(run), weight_grid(step))
    title = "Best weights by worst-set margin of nDCG@10 over the best baseline"
    console.print(candidates_table(ranked[:top], title=title))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m toolkit.notebook.report``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.notebook.report", description=__doc__)
    parser.add_argument("--dev-dir", type=Path, default=DEV_DIR, help="folder of the dev files")
    parser.add_argument("--limit", type=int, default=None, help="first N queries per file")
    parser.add_argument("--only", default=None, help="claims whose name contains this text")
    parser.add_argument("--tune", action="store_true", help="run the weight grid search")
    parser.add_argument("--step", type=float, default=STEP, help="grid step of the weights")
    parser.add_argument("--top", type=int, default=10, help="settings to show with --tune")
    parser.add_argument(
        "--no-write", action="store_true", help="leave docs/results/eval.json as it is"
    )
    args = parser.parse_args(argv)
    hint = "pass --dev-dir <folder of the dev files>"
    if not args.dev_dir.is_dir():
        print(f"dev data not found at {args.dev_dir}; {hint}", file=sys.stderr)
        return 2
    console = Console(width=max(Console().width, 160))
    run = Run(Settings(), dev_dir=args.dev_dir, limit=args.limit)
    try:
        if args.tune:
            tune(console, run, step=args.step, top=args.top)
            return 0
        return check_claims(console, run, only=args.only, write=not args.no_write)
    except FileNotFoundError as exc:  # a dev file missing from the folder
        print(f"dev file not found: {exc.filename}; {hint}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
