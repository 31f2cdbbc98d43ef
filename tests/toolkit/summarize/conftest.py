"""Fixtures of the summary tests."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.summarize.extractive.choose.scoring import model
from toolkit.summarize.extractive.choose.scoring.features import FEATURES

RULES = {
    model.SectionKind.DECISIONS: "rule_decisions",
    model.SectionKind.PLANS: "rule_plans",
    model.SectionKind.OPEN_QUESTIONS: "rule_open",
}


def rule_models() -> dict[model.SectionKind, model.ActModel]:
    """Scorers that name exactly what the old cue rules named (their feature alone)."""
    n, out = len(FEATURES), {}
    for kind, name in RULES.items():
        coef = np.zeros(n)
        coef[FEATURES.index(name)] = 10.0
        out[kind] = model.ActModel(FEATURES, np.zeros(n), np.ones(n), coef, -5.0, 0.5)
    return out


@pytest.fixture
def rule_scorers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's act scorers replaced by the old rules: tests of how sections tell
    their acts keep their chats' acts whatever the shipped thresholds name."""
    monkeypatch.setattr(model, "load_models", lambda *_: rule_models())
