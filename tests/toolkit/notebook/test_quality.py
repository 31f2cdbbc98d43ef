"""``toolkit.notebook.quality``: evaluation results laid out as tables (no model needed)."""

from __future__ import annotations

from toolkit.evaluate.claims import Evidence
from toolkit.evaluate.results import Results
from toolkit.notebook.plots import simplex_means
from toolkit.notebook.quality import (
    ablation_table,
    evidence_table,
    ranking_table,
    results_table,
)
from toolkit.notebook.table import Table

METRICS = {"nDCG@10": 0.9, "MRR@10": 0.8, "Recall@20": 1.0}
RESULTS: Results = {
    "BM25": {"ru_stsb": METRICS, "en_xquad": {**METRICS, "nDCG@10": 0.95}},
    "hybrid": {"ru_stsb": {**METRICS, "nDCG@10": 0.97}, "en_xquad": METRICS},
}


def test_results_table_has_one_row_per_method_and_set_with_its_language() -> None:
    table = results_table(RESULTS)
    assert table.columns == ["method", "set", "language", "nDCG@10", "MRR@10", "Recall@20"]
    assert [(r["set"], r["language"]) for r in table][:2] == [("ru_stsb", "ru"), ("en_xquad", "en")]


def test_ranking_table_is_the_readme_layout_with_the_best_values_marked() -> None:
    wide = ranking_table(results_table(RESULTS))
    assert wide["method"] == ["BM25", "hybrid"]
    assert wide.columns[:4] == ["method", "ru_stsb nDCG@10", "ru_stsb MRR@10", "ru_stsb Recall@20"]
    assert wide["ru_stsb nDCG@10"] == [0.9, 0.97]
    assert "method" not in wide.best
    assert "en_xquad nDCG@10" in wide.best
    assert "<b>0.970</b>" in wide._repr_html_()
    assert "<b>0.950</b>" in wide._repr_html_()


def test_ablation_table_names_the_variants() -> None:
    table = ablation_table({"without phrase": RESULTS["BM25"]})
    assert table["variant"] == ["without phrase", "without phrase"]
    assert ranking_table(table, key="variant")["variant"] == ["without phrase"]


def test_evidence_table_keeps_columns_best_and_digits() -> None:
    evidence = Evidence("T", [{"a": "x", "b": 0.123456}], ["a", "b"], best=["b"], digits=2)
    table = evidence_table(evidence)
    assert (table.title, table.columns, table.best, table.digits) == ("T", ["a", "b"], ("b",), 2)
    assert "<b>0.12</b>" in table._repr_html_()


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
