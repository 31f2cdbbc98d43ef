"""Fusion of the signals against a naive reference, with default and custom weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_reference import (
    INVALID_WEIGHTS,
    ref_lexical,
    ref_phrase,
    ref_semantic,
    ref_short,
    windows,
)

from toolkit.errors import InvalidWeights
from toolkit.search.scorer import SIGNAL_NAMES, compute_signals, fuse
from toolkit.search.signals import TermWindow
from toolkit.weights import SearchWeights, resolve_weights

CUSTOM = [
    SearchWeights(),
    SearchWeights(semantic=0.2, lexical=0.5, phrase=0.3, short_floor=0.1, short_scale=0.5),
    SearchWeights(semantic=1, lexical=0, phrase=0, semantic_exponent=1.0),
    SearchWeights(semantic=0, lexical=2, phrase=3, short_floor=1.0, semantic_exponent=0.5),
]


def ref_scores(
    cosines: list[float],
    messages: list[list[int]],
    query: list[int],
    w: SearchWeights,
    floor: float,
) -> list[float]:
    lexical = ref_lexical(messages, query)
    out = []
    for i, message in enumerate(messages):
        relevance = (
            w.semantic * ref_semantic(cosines[i], floor, w.semantic_exponent)
            + w.lexical * lexical[i]
            + w.phrase * ref_phrase(message, query)
        ) / (w.semantic + w.lexical + w.phrase)
        out.append(ref_short(len(message), w.short_floor, w.short_scale) * relevance)
    return out


@pytest.mark.parametrize("weights", CUSTOM, ids=["default", "lexical", "semantic-only", "no-sem"])
@settings(max_examples=60, deadline=None)
@given(messages=windows, query=st.lists(st.integers(0, 6), max_size=5), data=st.data())
@pytest.mark.slow
def test_scores_match_the_reference(
    weights: SearchWeights, messages: list[list[int]], query: list[int], data: st.DataObject
) -> None:
    cosines = data.draw(st.lists(st.floats(-1, 1), min_size=len(messages), max_size=len(messages)))
    window = TermWindow.build(messages)
    signals = compute_signals(cosines, window, query, weights, semantic_floor=0.7)
    scores = fuse(signals, weights)
    assert np.allclose(scores, ref_scores(cosines, messages, query, weights, 0.7))
    assert ((scores >= 0) & (scores <= 1)).all()


def test_explain_names_the_four_signals() -> None:
    window = TermWindow.build([[1, 2], [3]])
    signals = compute_signals([0.95, 0.5], window, [1, 2], SearchWeights(), semantic_floor=0.7)
    explained = signals.explain(0)
    assert tuple(explained) == SIGNAL_NAMES
    assert explained["lexical"] == 1.0
    assert explained["phrase"] == 1.0
    assert explained["semantic"] == pytest.approx(ref_semantic(0.95, 0.7, 4.0), abs=1e-6)
    assert signals.explain(1)["semantic"] == 0.0


def test_a_perfect_long_match_scores_one() -> None:
    window = TermWindow.build([list(range(60))])
    w = SearchWeights()
    scores = fuse(compute_signals([1.0], window, [0, 1, 2], w, semantic_floor=0.7), w)
    assert scores[0] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("bad", INVALID_WEIGHTS)
def test_invalid_weights_are_a_clear_error(bad: dict[str, float]) -> None:
    with pytest.raises(InvalidWeights) as caught:
        resolve_weights(bad, SearchWeights())
    assert caught.value.field == "weights"
    assert "invalid search weights" in str(caught.value)


def test_partial_weights_override_the_configured_ones() -> None:
    configured = SearchWeights(semantic=0.5, lexical=0.5, phrase=0.0)
    chosen = resolve_weights({"phrase": 0.25}, configured)
    assert (chosen.semantic, chosen.lexical, chosen.phrase) == (0.5, 0.5, 0.25)
    assert resolve_weights(None, configured) is configured
    full = SearchWeights(semantic=1, lexical=0, phrase=0)
    assert resolve_weights(full, configured) is full


def test_weights_from_settings_env_and_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolkit.config import Settings

    monkeypatch.setenv("MLENS_SEARCH__LEXICAL", "0.7")
    monkeypatch.setenv("MLENS_SEARCH__SEMANTIC_EXPONENT", "2")
    from_env = Settings(_env_file=None).search.weights  # type: ignore[call-arg]
    assert (from_env.lexical, from_env.semantic_exponent) == (0.7, 2.0)
    path = tmp_path / "weights.json"
    SearchWeights(semantic=0.3, lexical=0.3, phrase=0.4).to_file(path)
    from_file = Settings(_env_file=None, search={"weights_file": path}).search.weights  # type: ignore[call-arg]
    assert from_file.phrase == 0.4


@pytest.mark.parametrize("weights", CUSTOM, ids=["default", "lexical", "semantic-only", "no-sem"])
@settings(max_examples=40, deadline=None)
@given(messages=windows, query=st.lists(st.integers(0, 6), max_size=5), data=st.data())
def test_messages_without_a_vector_are_scored_by_their_words(
    weights: SearchWeights, messages: list[list[int]], query: list[int], data: st.DataObject
) -> None:
    n = len(messages)
    cosines = data.draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
    embedded = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    signals = compute_signals(cosines, TermWindow.build(messages), query, weights)
    scores = fuse(signals, weights, embedded=embedded)
    full = fuse(signals, weights)
    words = weights.lexical + weights.phrase
    for i in range(n):
        if embedded[i]:
            assert scores[i] == pytest.approx(full[i])
        else:
            lexical = weights.lexical * signals.lexical[i] + weights.phrase * signals.phrase[i]
            expected = signals.short_factor[i] * (lexical / words if words else 0.0)
            assert scores[i] == pytest.approx(expected)
    assert ((scores >= 0) & (scores <= 1)).all()
    assert np.array_equal(fuse(signals, weights, embedded=np.ones(n, dtype=bool)), full)
