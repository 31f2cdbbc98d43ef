"""The act scorers: one logistic model per act, applied without scikit-learn.

``weights.json`` (written by ``python -m toolkit.evaluate.acts.train``) holds, per act
(the section it fills: decisions, plans, open questions), the feature names, the
standardisation (mean, scale), coefficients, intercept and the threshold chosen
leave-one-source-out for precision ≥ 0.9; ``null`` where no threshold reached it: that
act is never named. A message is a candidate for an act only when it can be one at all
(``candidates``: no chatter, no copy of another message; a question for an open one,
none for the others); a candidate is named when its probability reaches the threshold.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolkit.models import SectionKind
from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.scoring.features import FEATURES, Rows, features
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.extractive.draft.keys import Logistic

WEIGHTS = Path(__file__).with_name("weights.json")
SCORED = (SectionKind.DECISIONS, SectionKind.PLANS, SectionKind.OPEN_QUESTIONS)
"""The acts a scorer decides, by the section each fills."""
MIN_WORDS = 3
"""Fewer words ("booked", "ок, беру") carry no act of their own: the message they answer does."""

Verdicts = Mapping[SectionKind, frozenset[int]]


@dataclass(frozen=True)
class ActModel:
    """One act's linear model over ``features``, and its threshold (None: never)."""

    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float
    threshold: float | None

    def probability(self, rows: Rows) -> npt.NDArray[np.float64]:
        """The model's probability of the act for each row (columns in ``features``'s order)."""
        return Logistic(self.mean, self.scale, self.coef, self.intercept).probability(rows)

    def names(self, rows: Rows) -> npt.NDArray[np.bool_]:
        """Whether each row reaches the threshold (all False where there is none)."""
        if self.threshold is None or math.isinf(self.threshold):
            return np.zeros(len(rows), dtype=bool)
        return self.probability(rows) >= self.threshold


def model_from(data: Mapping[str, object], names: Sequence[str]) -> ActModel:
    """An ``ActModel`` from one act's entry of the weights file."""
    threshold = data.get("threshold")
    return ActModel(
        features=tuple(names),
        mean=np.asarray(data["mean"], dtype=np.float64),
        scale=np.asarray(data["scale"], dtype=np.float64),
        coef=np.asarray(data["coef"], dtype=np.float64),
        intercept=float(data["intercept"]),  # type: ignore[arg-type]
        threshold=None if threshold is None else float(threshold),  # type: ignore[arg-type]
    )


@lru_cache(maxsize=4)
def load_models(path: Path = WEIGHTS) -> dict[SectionKind, ActModel]:
    """The shipped models by act; an act the file lacks (or a missing file) has none."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    names = data["features"]
    if tuple(names) != FEATURES:
        return {}  # weights of another feature set decide nothing until retrained
    return {SectionKind(k): model_from(v, names) for k, v in data["acts"].items()}


def _col(name: str) -> int:
    return FEATURES.index(name)


def candidates(kind: SectionKind, rows: Rows, seq: Sequence[Turn]) -> npt.NDArray[np.bool_]:
    """The messages that can be an act of ``kind`` at all (see the module docstring)."""
    acts = rows[:, [_col(n) for n in FEATURES if n.startswith("act_")]].sum(axis=1) > 0
    fresh = rows[:, _col("repeated")] == 0  # a copy (an advert, a forward) is never an act
    long = np.array([t.words >= MIN_WORDS for t in seq], dtype=bool)
    question = rows[:, _col("act_question")] > 0
    if kind is SectionKind.OPEN_QUESTIONS:
        asks = rows[:, _col("asks")] > 0
        chat = rows[:, _col("channel")] == 0  # a channel's questions are rhetorical
        out: npt.NDArray[np.bool_] = asks & chat & fresh
        return out
    out = acts & ~question & fresh & long
    return out


def decide(
    draft: Draft, seq: Sequence[Turn], models: Mapping[SectionKind, ActModel] | None = None
) -> dict[SectionKind, frozenset[int]]:
    """The messages named as each act: candidates whose scorer reaches its threshold."""
    models = load_models() if models is None else models
    if not seq or not models:
        return {kind: frozenset() for kind in SCORED}
    rows = features(draft, seq)
    out = {}
    for kind in SCORED:
        model = models.get(kind)
        named = model.names(rows) if model is not None else np.zeros(len(seq), dtype=bool)
        chosen = named & candidates(kind, rows, seq)
        out[kind] = frozenset(int(i) for i in np.flatnonzero(chosen))
    return out


def settle(seq: Sequence[Turn], decided: frozenset[int]) -> list[Turn]:
    """The turns with the decision act the scorer's: a statement it names is a decision,
    a message the cue rules called one but it does not name is a statement (a digest
    says "decided" only of what the scorer names)."""
    out = []
    for i, t in enumerate(seq):
        if t.act is Act.DECISION and i not in decided:
            t = replace(t, act=Act.STATEMENT)
        elif t.act is Act.STATEMENT and i in decided:
            t = replace(t, act=Act.DECISION)
        out.append(t)
    return out
