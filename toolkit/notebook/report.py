"""``python -m toolkit.notebook.report`` (``make eval``): the README's quality claims, checked.

Runs every claim of ``toolkit.evaluate.claims.CLAIMS`` (the hybrid against the
baselines, the README's ranking table, the summary engine against its baselines),
prints each one's tables and verdicts, and exits 1 when any claim fails. ``--tune``
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


def check_claims(console: Console, run: Run, *, only: str | None = None) -> int:
    """Check the claims (those whose name contains ``only``); 1 when any failed."""
    claims = [c for c in CLAIMS if only is None or only.lower() in c.name.lower()]
    started = time.perf_counter()
    findings = run_claims(claims, run)
    for finding in findings:
        print_finding(console, finding)
    failed = [f.claim for f in findings if f.failed]
    elapsed = time.perf_counter() - started
    console.print(f"({elapsed:.1f} s including loading and any first-run embedding)")
    if failed:
        console.print(f"[bold red]{len(failed)} claim(s) failed:[/] {'; '.join(failed)}")
    return 1 if failed else 0


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
        return check_claims(console, run, only=args.only)
    except FileNotFoundError as exc:  # a dev file missing from the folder
        print(f"dev file not found: {exc.filename}; {hint}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
