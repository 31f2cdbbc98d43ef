"""Fitting the act scorers and choosing their thresholds leave-one-source-out.

A scorer is a standardised logistic regression (scikit-learn) over the candidates of its
act (``scoring.model.candidates``) with a label. Leave-one-source-out: for each source,
the scorer fitted on all the others scores the held-out source's candidates; the
threshold is the lowest out-of-fold probability at which the pooled precision is still
≥ ``TARGET_PRECISION`` with at least ``MIN_TRUE`` true items, else ``None`` (never).
Where the real chats are among the sources, the precision must also hold within them
and within the hand-written sources apart (``group``): the hand-written windows are
easy and many, and a pooled 0.9 hid a real-chat precision of 0.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from toolkit.evaluate.acts.examples import Example
from toolkit.models import SectionKind
from toolkit.summarize.extractive.choose.scoring.features import FEATURES
from toolkit.summarize.extractive.choose.scoring.model import ActModel
from toolkit.summarize.extractive.draft.keys import Logistic

TARGET_PRECISION = 0.9
MIN_TRUE = 5
"""A threshold must keep this many true items: a lucky hit or two is no evidence."""
WRITTEN = ("windows", "cases")
"""The hand-written sources (the rest are real chats)."""
C = 0.1
"""The inverse L2 strength: few positives, many features, so a strong prior."""

Floats = npt.NDArray[np.float64]


def training_rows(examples: Sequence[Example], kind: SectionKind) -> tuple[Floats, Floats]:
    """The labelled candidates of ``kind`` in ``examples``: rows and 0/1 labels."""
    xs, ys = [], []
    for ex in examples:
        keep = ex.candidates[kind] & (ex.labels[kind] >= 0)
        xs.append(ex.rows[keep])
        ys.append(ex.labels[kind][keep].astype(np.float64))
    if not xs:
        return np.zeros((0, len(FEATURES))), np.zeros(0)
    return np.vstack(xs), np.concatenate(ys)


def fit_logistic(x: Floats, y: Floats, *, c: float = C, balanced: bool = True) -> Logistic:
    """A standardised logistic regression (scikit-learn) fitted on ``x``, ``y``: inverse
    L2 strength ``c``, classes weighed to balance when ``balanced``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    weights = "balanced" if balanced else None
    lr = LogisticRegression(C=c, class_weight=weights, max_iter=2000)
    lr.fit(scaler.transform(x), y)
    return Logistic(
        np.asarray(scaler.mean_, dtype=np.float64),
        np.asarray(scaler.scale_, dtype=np.float64),
        np.asarray(lr.coef_[0], dtype=np.float64),
        float(lr.intercept_[0]),
    )


def fit_model(x: Floats, y: Floats, threshold: float | None = None) -> ActModel | None:
    """A logistic model fitted on ``x``, ``y`` (None when a class is missing)."""
    if len(set(y.tolist())) < 2:
        return None
    found = fit_logistic(x, y)
    return ActModel(FEATURES, found.mean, found.scale, found.coef, found.intercept, threshold)


@dataclass(frozen=True)
class Fold:
    """One held-out example's out-of-fold probabilities (0 outside the candidates)."""

    example: Example
    scores: Floats


def out_of_fold(examples: Sequence[Example], kind: SectionKind) -> list[Fold]:
    """Each example scored by the model fitted on every other source."""
    out = []
    models: dict[str, ActModel | None] = {}
    for ex in examples:
        if ex.source not in models:
            rest = [e for e in examples if e.source != ex.source]
            models[ex.source] = fit_model(*training_rows(rest, kind))
        model = models[ex.source]
        scores = np.zeros(len(ex.rows))
        if model is not None:
            scores = np.where(ex.candidates[kind], model.probability(ex.rows), 0.0)
        out.append(Fold(ex, scores))
    return out


def group(source: str) -> int:
    """0 for a real chat, 1 for a hand-written source."""
    return int(source in WRITTEN)


def choose_threshold(
    scores: Floats, labels: Floats, groups: npt.NDArray[np.int_] | None = None
) -> float | None:
    """The lowest score whose items at or above it are ≥ ``TARGET_PRECISION`` right, all
    together and within each of ``groups`` that has some, with ``MIN_TRUE`` true ones at
    least; None when no score is."""
    groups = np.zeros(len(scores), dtype=np.int_) if groups is None else groups
    best = None
    for t in sorted({float(v) for v in scores if v > 0}, reverse=True):
        named = scores >= t
        if labels[named].sum() < MIN_TRUE:
            continue
        parts = [named] + [named & (groups == g) for g in np.unique(groups)]
        if all(labels[p].mean() >= TARGET_PRECISION for p in parts if p.any()):
            best = t
    return best


def pooled(folds: Sequence[Fold], kind: SectionKind) -> tuple[Floats, Floats, npt.NDArray[np.int_]]:
    """The labelled candidates' out-of-fold scores, labels and groups, all folds together."""
    scores, labels, groups = [np.zeros(0)], [np.zeros(0)], [np.zeros(0, dtype=np.int_)]
    for f in folds:
        keep = f.example.candidates[kind] & (f.example.labels[kind] >= 0)
        scores.append(f.scores[keep])
        labels.append(f.example.labels[kind][keep].astype(np.float64))
        groups.append(np.full(int(keep.sum()), group(f.example.source), dtype=np.int_))
    return np.concatenate(scores), np.concatenate(labels), np.concatenate(groups)


def as_json(model: ActModel, **more: Any) -> dict[str, Any]:
    """One act's entry of the weights file."""
    return {
        "mean": [round(v, 6) for v in model.mean.tolist()],
        "scale": [round(v, 6) for v in model.scale.tolist()],
        "coef": [round(v, 6) for v in model.coef.tolist()],
        "intercept": round(model.intercept, 6),
        "threshold": model.threshold,
        **more,
    }
