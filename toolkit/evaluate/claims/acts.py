"""The act-scorer claim (issue 40): what a digest names as a decision, a plan or an open
question holds on chats the scorers were not fitted on.

Leave-one-source-out (``toolkit.evaluate.acts.loso``): each real chat of the corpus
(``toolkit.evaluate.corpus``, cached outside the repository), the hand-written windows and
the dev cases are held out in turn, the scorers fitted on the others and thresholded as
the shipped ones are. Per act and scope, the precision of what would be named is at least
``PRECISION`` (or nothing is named: a digest says less rather than something false);
recall is shown. Where the real corpus is not cached (a fresh clone, CI) one line says
so and the rest is checked.
"""

from __future__ import annotations

from typing import Any

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict

PRECISION = 0.9
"""The least precision of every act a digest names, in every scope."""


def _cell(value: Any) -> Any:
    return f"{value:.2f}" if isinstance(value, float) else "—" if value is None else value


def acts_hold(run: Run) -> Finding:
    """Every act's leave-one-source-out precision is at least ``PRECISION``."""
    from toolkit.evaluate.acts.loso import COLUMNS, evaluate, load, rows_of

    def compute() -> tuple[list[dict[str, Any]], str | None]:
        examples, skipped = load(run.dev_dir)
        return [row for r in evaluate(examples) for row in rows_of(r)], skipped

    rows, skipped = run.measure("acts-loso", compute)
    verdicts = []
    for row in rows:
        what = f"{row['act']} on {row['scope']}"
        p, n = row["after P"], row["after n"]
        if not n:
            verdicts.append(Verdict(True, f"{what}: nothing named (recall 0 of {row['support']})"))
            continue
        verdicts.append(
            Verdict(
                p >= PRECISION,
                f"{what}: precision {p:.2f} of {n} named >= {PRECISION}, "
                f"recall {row['after R']:.2f} of {row['support']}",
            )
        )
    if skipped:
        verdicts.append(Verdict(None, skipped))
    shown = [
        {
            k: (f"{v:.2f}" if isinstance(v, float) else ("—" if v is None else v))
            for k, v in r.items()
        }
        for r in rows
    ]
    evidence = Evidence(
        "Acts leave-one-source-out: the old cue rules (before) and the scorers (after)",
        shown,
        COLUMNS,
    )
    return Finding("acts leave-one-source-out", verdicts, [evidence])
