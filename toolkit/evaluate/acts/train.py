"""``python -m toolkit.evaluate.acts.train``: fit the act scorers and ship their weights.

Fits one logistic scorer per act on every labelled example (``examples``), with the
threshold chosen leave-one-source-out (``fit``), and writes
``toolkit/summarize/extractive/choose/scoring/weights.json``: the feature names, per act the
standardisation, coefficients, intercept, threshold (``null``: the engine names no such
act), label counts and the out-of-fold precision and recall; the training date and the
sources. Then prints the ``loso`` table. Refuses to write without the real corpus
(``--allow-partial`` to write anyway).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from toolkit.evaluate.acts.examples import Example
from toolkit.evaluate.acts.fit import (
    MIN_TRUE,
    TARGET_PRECISION,
    C,
    as_json,
    fit_model,
    training_rows,
)
from toolkit.evaluate.acts.loso import ActResult, evaluate, load, parser, report, rows_of
from toolkit.summarize.extractive.choose.scoring.features import FEATURES
from toolkit.summarize.extractive.choose.scoring.model import WEIGHTS


def weights(examples: Sequence[Example], results: Sequence[ActResult]) -> dict[str, Any]:
    """The weights file's content."""
    acts = {}
    for r in results:
        x, y = training_rows(examples, r.kind)
        model = fit_model(x, y, r.threshold)
        if model is None:
            continue
        loso = {f"{row['scope']}": {k: row[k] for k in ("support", "after P", "after R")}
                for row in rows_of(r)}  # fmt: skip
        labels = {"positive": int(y.sum()), "negative": int(len(y) - y.sum())}
        acts[r.kind.value] = as_json(model, labels=labels, loso=loso)
    return {
        "trained": date.today().isoformat(),
        "model": f"logistic regression, L2 C={C}, balanced classes, standardised",
        "threshold_rule": f"lowest out-of-fold score with precision >= {TARGET_PRECISION} "
        f"pooled and within real and hand-written sources, {MIN_TRUE}+ true items",
        "sources": sorted({e.source for e in examples}),
        "windows": len(examples),
        "features": list(FEATURES),
        "acts": acts,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Fits, writes the weights (``--out``), prints the table; 2 without the real corpus."""
    p = parser("python -m toolkit.evaluate.acts.train")
    p.add_argument("--out", type=Path, default=WEIGHTS, help="where the weights are written")
    p.add_argument("--allow-partial", action="store_true", help="write without the real corpus")
    args = p.parse_args(argv)
    examples, skipped = load(args.dev_dir, real=not args.no_real)
    if skipped and not args.allow_partial:
        print(f"{skipped}; weights not written (--allow-partial to write anyway)", file=sys.stderr)
        return 2
    results = evaluate(examples)
    content = weights(examples, results)
    args.out.write_text(json.dumps(content, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(report(results, skipped))
    print(f"weights written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
