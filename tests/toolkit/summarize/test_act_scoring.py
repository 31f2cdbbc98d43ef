"""The act scorers: features on small fixtures, the linear model against scikit-learn,
thresholds (below: nothing), and the shipped weights' shape."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from toolkit.models import Message, SectionKind, SourceKind
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.choose.scoring.features import FEATURES, features, repeats
from toolkit.summarize.extractive.choose.scoring.model import (
    SCORED,
    WEIGHTS,
    ActModel,
    decide,
    load_models,
)
from toolkit.summarize.extractive.draft.lexical import lexical_vectors
from toolkit.summarize.extractive.engine import read_messages

START = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)


def _messages(rows: list[tuple[str, str, int | None]], reactions: dict[int, tuple] | None = None):
    return [
        Message(0, n + 1, START + timedelta(minutes=3 * n), text, sender, sender, reply,
                reactions=(reactions or {}).get(n + 1, ()))
        for n, (sender, text, reply) in enumerate(rows)
    ]  # fmt: skip


def _rows(messages: list[Message], kind: SourceKind = SourceKind.CHAT):
    ctx = SummaryContext("period", kind, "t", "en", START, START + timedelta(days=1))
    draft, seq = read_messages(messages, lexical_vectors([m.text for m in messages]), ctx)
    return draft, seq, features(draft, seq)


def col(rows: np.ndarray, i: int, name: str) -> float:
    return float(rows[i, FEATURES.index(name)])


CHAT = [
    ("Ann", "Shall we take the early train to Leeds on Friday?", None),
    ("Ben", "Yes, sounds good", 1),
    ("Ann", "Booked it, two tickets for Friday at 9:40.", None),
    ("Cy", "Does anyone know where the spare keys to the garage are kept?", None),
    ("Ben", "I will bring the maps tomorrow morning.", None),
]


def test_features_read_the_reply_graph_the_cues_and_the_time() -> None:
    _, _, rows = _rows(_messages(CHAT, reactions={3: (("👍", 2),)}))
    assert rows.shape == (5, len(FEATURES))
    assert col(rows, 0, "act_question") == 1
    assert col(rows, 0, "agreed") == 1
    assert col(rows, 1, "is_reply") == 1
    assert col(rows, 1, "replies_question") == 1
    assert col(rows, 2, "cue_decision") == 1
    assert col(rows, 2, "liked") == 1
    assert col(rows, 2, "reactions") == pytest.approx(np.log1p(2))
    assert col(rows, 3, "asks") == 1
    assert col(rows, 3, "asks_long") == 1
    assert col(rows, 4, "time_ahead") == 1
    assert col(rows, 4, "time_later_day") == 1
    assert col(rows, 4, "cue_plan") == 1
    assert col(rows, 0, "pair") == 0  # three people


def test_a_copied_text_counts_as_repeated_with_its_author() -> None:
    offer = "Cheap rides to the airport every day, write to me for the price today"
    # Another ending, the same opening; and the same text with other digits.
    texts = [offer, "hello", offer + " or call after six", offer + " 50", "a b c"]
    count, by_author = repeats(texts, ["Zed", "Ann", "Zed", "Yan", "Zed"])
    assert count[0] == 2
    assert by_author[0]
    assert count[1] == 0
    assert not by_author[1]
    assert count[3] == 2
    assert not by_author[3]
    assert count[4] == 0  # too short to call a copy


def test_the_linear_model_equals_sklearn_predict_proba() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(7)
    x = rng.normal(size=(200, len(FEATURES))) * rng.uniform(0.5, 3, len(FEATURES))
    y = (x[:, 0] + 0.5 * x[:, 3] + rng.normal(size=200) > 0).astype(int)
    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=2000)).fit(x, y)
    scaler, lr = pipe[0], pipe[1]
    intercept = float(lr.intercept_[0])
    model = ActModel(FEATURES, scaler.mean_, scaler.scale_, lr.coef_[0], intercept, 0.5)
    assert np.allclose(model.probability(x), pipe.predict_proba(x)[:, 1])
    assert (model.names(x) == (pipe.predict_proba(x)[:, 1] >= 0.5)).all()


def _constant(p: float, threshold: float | None) -> ActModel:
    """A model whose probability is ``p`` for every row."""
    n = len(FEATURES)
    intercept = float(np.log(p / (1 - p)))
    return ActModel(FEATURES, np.zeros(n), np.ones(n), np.zeros(n), intercept, threshold)


def test_below_the_threshold_nothing_is_named() -> None:
    draft, seq, _ = _rows(_messages(CHAT))
    below = {kind: _constant(0.6, 0.7) for kind in SCORED}
    assert all(not v for v in decide(draft, seq, below).values())
    never = {kind: _constant(0.99, None) for kind in SCORED}
    assert all(not v for v in decide(draft, seq, never).values())
    above = {kind: _constant(0.8, 0.7) for kind in SCORED}
    named = decide(draft, seq, above)
    assert named[SectionKind.OPEN_QUESTIONS] == {0, 3}  # the questions only
    assert 2 in named[SectionKind.DECISIONS]
    assert 3 not in named[SectionKind.DECISIONS]


def test_a_channel_names_no_open_question() -> None:
    draft, seq, _ = _rows(_messages(CHAT), SourceKind.CHANNEL)
    named = decide(draft, seq, {kind: _constant(0.8, 0.7) for kind in SCORED})
    assert not named[SectionKind.OPEN_QUESTIONS]


def test_the_shipped_weights_fit_the_features() -> None:
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    assert data["features"] == list(FEATURES)
    models = load_models()
    assert set(models) <= set(SCORED)
    for kind, model in models.items():
        assert model.coef.shape == (len(FEATURES),), kind
        assert model.threshold is None or 0 < model.threshold < 1
