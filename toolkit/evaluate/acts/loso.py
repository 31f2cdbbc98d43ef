"""``python -m toolkit.evaluate.acts.loso``: the act scorers leave-one-source-out, beside the rules.

Per act (decisions, plans, open questions) and scope (the real chats pooled, the 19
hand-written windows, the dev cases): precision, recall and support of the old cue-word
rules (``before``: what the old sections could claim, ``scoring.rules``) and of the
scorer fitted on the other sources with the threshold chosen on the pooled out-of-fold
scores (``after``). Where the real corpus is not cached (CI) it says so in one line and
measures the rest.

    python -m toolkit.evaluate.acts.loso [--dev-dir ../shared/data/eval/dev]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.evaluate.acts.examples import Example, all_examples
from toolkit.evaluate.acts.fit import Fold, choose_threshold, out_of_fold, pooled
from toolkit.evaluate.digests.calibration import CASES_FILE, load_cases
from toolkit.evaluate.digests.main import text_table
from toolkit.evaluate.digests.windows import DATA_FILE, load_windows
from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.models import SectionKind
from toolkit.summarize.extractive.choose.scoring.features import FEATURES
from toolkit.summarize.extractive.choose.scoring.model import SCORED

RULE = {
    SectionKind.DECISIONS: "rule_decisions",
    SectionKind.PLANS: "rule_plans",
    SectionKind.OPEN_QUESTIONS: "rule_open",
}
"""The feature that holds the old rules' verdict on each act."""
SCOPES: tuple[tuple[str, Callable[[Example], bool]], ...] = (
    ("real corpus", lambda e: e.source not in ("windows", "cases")),
    ("19 windows", lambda e: e.source == "windows"),
    ("dev cases", lambda e: e.source == "cases"),
)
COLUMNS = ["act", "scope", "support", "before P", "before R", "before n", "after P", "after R",
           "after n"]  # fmt: skip


@dataclass(frozen=True)
class ActResult:
    """One act's out-of-fold scores and the threshold chosen on them."""

    kind: SectionKind
    folds: list[Fold]
    threshold: float | None


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _counts(
    folds: Sequence[Fold], kind: SectionKind, named: Callable[[Fold], Any]
) -> dict[str, Any]:
    true = false = support = 0
    for f in folds:
        labels, said = f.example.labels[kind], named(f)
        true += int((said & (labels == 1)).sum())
        false += int((said & (labels == 0)).sum())
        support += int((labels == 1).sum())
    return {"P": _ratio(true, true + false), "R": _ratio(true, support), "n": true + false,
            "support": support}  # fmt: skip


def rows_of(result: ActResult) -> list[dict[str, Any]]:
    """The table's rows for one act: one per scope that has examples."""
    kind, col = result.kind, FEATURES.index(RULE[result.kind])
    thr = result.threshold

    def before(f: Fold) -> Any:
        return f.example.rows[:, col] > 0

    def after(f: Fold) -> Any:
        if thr is None:
            return np.zeros(len(f.scores), dtype=bool)
        return f.example.candidates[kind] & (f.scores >= thr)

    out = []
    for scope, keep in SCOPES:
        mine = [f for f in result.folds if keep(f.example)]
        if not mine:
            continue
        b, a = _counts(mine, kind, before), _counts(mine, kind, after)
        out.append({"act": kind.value, "scope": scope, "support": b["support"],
                    **{f"before {k}": b[k] for k in "PRn"},
                    **{f"after {k}": a[k] for k in "PRn"}})  # fmt: skip
    return out


def evaluate(examples: Sequence[Example]) -> list[ActResult]:
    """Every act scored out of fold, with its threshold."""
    out = []
    for kind in SCORED:
        folds = out_of_fold(examples, kind)
        out.append(ActResult(kind, folds, choose_threshold(*pooled(folds, kind))))
    return out


def load(dev_dir: Path | None, *, real: bool = True) -> tuple[list[Example], str | None]:
    """Every labelled example (the dev windows and cases only where ``dev_dir`` is)."""
    dev = dev_dir if dev_dir is not None and dev_dir.is_dir() else None
    windows = load_windows(DATA_FILE, dev_dir=dev)
    cases = load_cases(dev / CASES_FILE.name) if dev is not None else []
    return all_examples(windows, cases, real=real)


def report(results: Sequence[ActResult], skipped: str | None) -> str:
    """The table, the thresholds, and the skipped line where there is one."""
    lines = [skipped] if skipped else []
    rows = [row for r in results for row in rows_of(r)]
    lines += [text_table(rows, COLUMNS), ""]
    for r in results:
        shown = (
            "none (the engine names no such act)" if r.threshold is None else f"{r.threshold:.3f}"
        )
        lines.append(f"threshold {r.kind.value}: {shown}")
    return "\n".join(lines)


def parser(prog: str) -> argparse.ArgumentParser:
    """The options both commands take."""
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--dev-dir", type=Path, default=DEV_DIR, help="folder of the dev files")
    p.add_argument("--no-real", action="store_true", help="leave the real corpus out")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Prints the table; returns 0."""
    args = parser("python -m toolkit.evaluate.acts.loso").parse_args(argv)
    examples, skipped = load(args.dev_dir, real=not args.no_real)
    print(report(evaluate(examples), skipped))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
