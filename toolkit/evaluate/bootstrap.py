"""Paired bootstrap intervals of a difference in means (systems scored on the same items)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SAMPLES = 2000
SEED = 20240611


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean difference and its bootstrap interval."""

    mean: float
    low: float
    high: float


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    samples: int = SAMPLES,
    level: float = 0.95,
    seed: int = SEED,
) -> Interval:
    """Mean of ``a - b`` and its percentile interval over resampled items.

    Args:
        a, b: scores of two systems on the same items, in the same order.
        samples: bootstrap resamples.
        level: coverage of the interval (0.95: the 2.5th to 97.5th percentile).
        seed: the resampling seed (the interval is deterministic).
    """
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if diff.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(samples, diff.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(diff.mean()), float(low), float(high))
