"""``toolkit.research``: evaluation results laid out as tables (no model needed)."""

from __future__ import annotations

import pytest

from toolkit.frames import Table
from toolkit.research import (
    ablation_variants,
    language_of,
    results_table,
    simplex_means,
    simplex_points,
)
from toolkit.search.weights import SearchWeights


def test_simplex_points_cover_the_simplex_and_keep_the_other_fields() -> None:
    base = SearchWeights().replace(short_floor=0.9, short_scale=3.0)
    points = simplex_points(0.25, base)
    assert len(points) == 15  # (n + 1)(n + 2) / 2 with n = 4
    for w in points:
        assert w.semantic + w.lexical + w.phrase == pytest.approx(1.0)
        assert (w.short_floor, w.short_scale) == (0.9, 3.0)
    corners = {(w.semantic, w.lexical, w.phrase) for w in points}
    assert {(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)} <= corners


def test_ablation_removes_each_part_but_never_all_weights() -> None:
    variants = ablation_variants(SearchWeights().replace(semantic=0.5, lexical=0.5, phrase=0.0))
    assert variants["without semantic"].semantic == 0
    assert variants["without lexical"].lexical == 0
    assert variants["without short factor"].short_floor == 1.0
    # phrase is already 0; taking out semantic or lexical leaves the other one.
    only_semantic = ablation_variants(SearchWeights().replace(lexical=0.0, phrase=0.0))
    assert "without semantic" not in only_semantic


def test_results_table_has_one_row_per_method_and_set_with_its_language() -> None:
    metrics = {"nDCG@10": 0.9, "MRR@10": 0.8, "Recall@20": 1.0}
    table = results_table({"BM25": {"ru_stsb": metrics, "en_xquad": metrics}})
    assert table.columns == ["method", "set", "language", "nDCG@10", "MRR@10", "Recall@20"]
    assert [(r["set"], r["language"]) for r in table] == [("ru_stsb", "ru"), ("en_xquad", "en")]
    assert language_of("ru_xquad") == "ru"


def test_simplex_means_keeps_the_best_shape_per_point() -> None:
    grid = Table(
        [
            {"semantic": 1.0, "lexical": 0.0, "phrase": 0.0, "mean": 0.5},
            {"semantic": 1.0, "lexical": 0.0, "phrase": 0.0, "mean": 0.7},
            {"semantic": 0.0, "lexical": 1.0, "phrase": 0.0, "mean": 0.4},
        ]
    )
    points, values = simplex_means(grid)
    assert dict(zip(points, values, strict=True)) == {(1.0, 0.0, 0.0): 0.7, (0.0, 1.0, 0.0): 0.4}
