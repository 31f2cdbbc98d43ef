"""The vectorised signals against naive, obviously correct reference implementations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_reference import (
    queries,
    ref_lexical,
    ref_longest_run,
    ref_phrase,
    ref_semantic,
    ref_short,
    windows,
)

from toolkit.search import signals as sig
from toolkit.search.signals import TermWindow


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(windows, queries)
def test_lexical_and_phrase_match_the_reference(
    messages: list[list[int]], query: list[int]
) -> None:
    window = TermWindow.build(messages)
    distinct = list(dict.fromkeys(query))
    presence = sig.term_presence(window, distinct)
    lexical = sig.lexical_coverage(presence, sig.window_idf(presence))
    assert np.allclose(lexical, ref_lexical(messages, query))
    runs = sig.longest_runs(window, query)
    assert runs.tolist() == [ref_longest_run(m, query) for m in messages]
    phrase = sig.phrase_match(runs, len(query))
    assert np.allclose(phrase, [ref_phrase(m, query) for m in messages])
    for values in (lexical, phrase):
        assert ((values >= 0) & (values <= 1)).all()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1, 1), min_size=1, max_size=20),
    st.floats(-0.5, 0.95),
    st.floats(0.25, 8),
)
@pytest.mark.slow
def test_semantic_matches_the_reference(
    cosines: list[float], floor: float, exponent: float
) -> None:
    got = sig.semantic(cosines, floor=floor, exponent=exponent)
    assert np.allclose(got, [ref_semantic(c, floor, exponent) for c in cosines])
    assert ((got >= 0) & (got <= 1)).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=20), st.floats(0, 1), st.floats(0.1, 20))
@pytest.mark.slow
def test_short_factor_matches_the_reference(counts: list[int], floor: float, scale: float) -> None:
    got = sig.short_factor(counts, floor=floor, scale=scale)
    assert np.allclose(got, [ref_short(n, floor, scale) for n in counts])
    assert ((got >= floor - 1e-12) & (got <= 1)).all()


def test_short_factor_rises_smoothly_from_the_floor() -> None:
    values = sig.short_factor(np.arange(0, 30), floor=0.5, scale=2.0)
    assert values[0] == pytest.approx(0.5)
    assert (np.diff(values) > 0).all()
    assert values[-1] == pytest.approx(1.0, abs=1e-6)


def test_window_layout() -> None:
    window = TermWindow.build([[1, 2], [], [3]])
    assert window.size == 3
    assert window.ids.tolist() == [1, 2, 3]
    assert window.offsets.tolist() == [0, 2, 2, 3]
    assert window.owner.tolist() == [0, 0, 2]
    assert window.lengths.tolist() == [2, 0, 1]


def test_phrase_needs_adjacency_and_order() -> None:
    window = TermWindow.build([[1, 2, 3], [3, 2, 1], [1, 9, 2, 3], [2, 3], [1]])
    runs = sig.longest_runs(window, [1, 2, 3])
    assert runs.tolist() == [3, 1, 2, 2, 1]
    assert sig.phrase_match(runs, 3).tolist() == pytest.approx([1.0, 0.0, 2 / 3, 2 / 3, 0.0])


def test_a_run_never_spans_two_messages() -> None:
    window = TermWindow.build([[5, 1], [2, 6]])
    assert sig.longest_runs(window, [1, 2]).tolist() == [1, 1]


def test_rare_terms_weigh_more() -> None:
    # Term 1 is in every message, term 2 only in the first: covering 2 counts more.
    window = TermWindow.build([[1, 2], [1], [1], [1]])
    presence = sig.term_presence(window, [1, 2])
    lexical = sig.lexical_coverage(presence, sig.window_idf(presence))
    assert lexical[0] == pytest.approx(1.0)
    assert 0 < lexical[1] < 0.5


def test_empty_query_and_empty_window_give_zeros() -> None:
    window = TermWindow.build([[], []])
    presence = sig.term_presence(window, [1])
    assert sig.lexical_coverage(presence, sig.window_idf(presence)).tolist() == [0.0, 0.0]
    assert sig.longest_runs(window, [1, 2]).tolist() == [0, 0]
    no_query = sig.term_presence(TermWindow.build([[1]]), [])
    assert sig.lexical_coverage(no_query, sig.window_idf(no_query)).tolist() == [0.0]
    assert sig.phrase_match([0], 0).tolist() == [0.0]


def test_inputs_are_not_modified() -> None:
    cos = np.array([0.9, 0.8])
    before = cos.copy()
    sig.semantic(cos, floor=0.7, exponent=2)
    assert (cos == before).all()
