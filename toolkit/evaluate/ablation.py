"""Ablation of the hybrid: each signal (and the short factor) taken out in turn."""

from __future__ import annotations

from toolkit.evaluate.compare import Prepared, mean_metrics
from toolkit.evaluate.results import Results
from toolkit.weights import SearchWeights

SIGNALS = ("semantic", "lexical", "phrase")
FULL = "hybrid (all signals)"
"""The name of the variant that keeps every signal."""


def ablation_variants(weights: SearchWeights) -> dict[str, SearchWeights]:
    """The hybrid with each part taken out in turn (a signal's weight, or the short factor).

    A variant that would leave no weight at all is skipped.
    """
    variants = {FULL: weights}
    for name in SIGNALS:
        others = set(SIGNALS) - {name}
        if any(getattr(weights, other) > 0 for other in others):
            variants[f"without {name}"] = weights.replace(**{name: 0.0})
    variants["without short factor"] = weights.replace(short_floor=1.0)
    return variants


def ablation(prepared: Prepared, weights: SearchWeights) -> Results:
    """Every metric of each ``ablation_variants`` variant: ``results[variant][set][metric]``."""
    return {
        variant: {
            name: mean_metrics(queries, "hybrid", changed) for name, queries in prepared.items()
        }
        for variant, changed in ablation_variants(weights).items()
    }
