"""``make eval``'s claims: verdicts, the published ranking table, the report's exit code
and the results file it writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from toolkit.config import Settings
from toolkit.evaluate.ablation import ablation_variants
from toolkit.evaluate.claims import Claim, Evidence, Finding, Run, Verdict
from toolkit.evaluate.claims import ranking as ranking_claims
from toolkit.evaluate.claims.ranking import compare_with_published, hybrid_margins
from toolkit.evaluate.published import RESULTS_FILE, read_published, write_published
from toolkit.evaluate.results import Results
from toolkit.evaluate.retrieval import DEV_FILES
from toolkit.evaluate.tuning import simplex_points
from toolkit.notebook import report
from toolkit.weights import SearchWeights


def _metrics(ndcg: float, mrr: float, recall: float) -> dict[str, float]:
    return {"nDCG@10": ndcg, "MRR@10": mrr, "Recall@20": recall}


STATED: Results = {
    "BM25": {"ru_xquad": _metrics(0.985, 0.98, 1.0), "en_stsb": _metrics(0.928, 0.907, 0.99)},
    "hybrid": {"ru_xquad": _metrics(0.99, 0.987, 1.0), "en_stsb": _metrics(0.964, 0.952, 1.0)},
}


def test_the_published_results_hold_every_method_on_every_dev_set() -> None:
    stated = read_published(RESULTS_FILE).ranking
    assert list(stated) == ["BM25", "dense", "RRF", "hybrid"]
    assert all(list(per_set) == list(DEV_FILES) for per_set in stated.values())


def test_published_comparison_fails_on_a_number_that_moved() -> None:
    measured: Results = {
        "BM25": {
            "ru_xquad": _metrics(0.9851, 0.9797, 1.0),
            "en_stsb": _metrics(0.928, 0.907, 0.99),
        },
        "hybrid": {"ru_xquad": _metrics(0.99, 0.987, 1.0), "en_stsb": _metrics(0.96, 0.952, 1.0)},
    }
    bm25, hybrid = compare_with_published(measured, STATED)
    assert bm25.passed is True
    assert hybrid.passed is False
    assert "en_stsb nDCG@10: published 0.9640, measured 0.9600" in hybrid.message
    (missing,) = compare_with_published({}, STATED)[:1]
    assert missing.passed is False
    assert "measured nothing" in missing.message
    assert compare_with_published(measured, {})[0].passed is False


def test_the_claim_reads_the_file_as_it_was_before_the_run(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    write_published({"ranking": {"engine": {}, "results": STATED}}, path)
    run = Run(Settings(), results_file=path)
    run.measure(f"ranking {SearchWeights()!r}", lambda: STATED)  # as if measured
    assert not ranking_claims.published_table_holds(run).failed
    moved = {**STATED, "BM25": {**STATED["BM25"], "en_stsb": _metrics(0.9, 0.907, 0.99)}}
    write_published({"ranking": {"engine": {}, "results": moved}}, path)
    assert not ranking_claims.published_table_holds(run).failed  # read once per run
    fresh = Run(Settings(), results_file=path)
    fresh.measure(f"ranking {SearchWeights()!r}", lambda: STATED)
    finding = ranking_claims.published_table_holds(fresh)
    assert finding.failed
    assert "en_stsb nDCG@10: published 0.9000, measured 0.9280" in str(finding.verdicts[0])


def test_hybrid_margins_allow_a_tie_and_fail_a_loss() -> None:
    results: Results = {
        "BM25": {"a_set": _metrics(0.9, 0, 0), "b_set": _metrics(0.5, 0, 0)},
        "dense": {"a_set": _metrics(0.8, 0, 0), "b_set": _metrics(0.7, 0, 0)},
        "hybrid": {"a_set": _metrics(0.9, 0, 0), "b_set": _metrics(0.6, 0, 0)},
    }
    tie, loss = hybrid_margins(results)
    assert tie.passed is True
    assert "BM25 0.900 (+0.000)" in tie.message
    assert loss.passed is False
    assert "best baseline dense 0.700 (-0.100)" in loss.message


def test_ranking_evidence_is_the_wide_table_with_every_metric_column_marked() -> None:
    results: Results = {"BM25": {"a_set": _metrics(0.9, 0.8, 1.0)}}
    evidence = ranking_claims.ranking_evidence(results, title="t")
    assert evidence.columns == ["method", "a_set nDCG@10", "a_set MRR@10", "a_set Recall@20"]
    assert list(evidence.best) == evidence.columns[1:]
    assert evidence.rows == [{"method": "BM25", "a_set nDCG@10": 0.9, "a_set MRR@10": 0.8,
                              "a_set Recall@20": 1.0}]  # fmt: skip


def test_the_published_claim_is_skipped_on_a_subsample() -> None:
    finding = ranking_claims.published_table_holds(Run(Settings(), limit=3))
    assert [v.passed for v in finding.verdicts] == [None]
    assert not finding.failed


def test_run_measures_once_per_key() -> None:
    run = Run(Settings())
    calls: list[int] = []
    assert run.measure("x", lambda: calls.append(1) or 7) == 7
    assert run.measure("x", lambda: calls.append(1) or 8) == 7
    assert calls == [1]


def _claim(name: str, passed: bool | None) -> Claim:
    evidence = Evidence("Evidence of " + name, [{"m": "a", "v": 0.5}], ["m", "v"], ["v"])
    return Claim(name, lambda run: Finding(name, [Verdict(passed, f"{name} said")], [evidence]))


@pytest.mark.parametrize(("states", "status"), [((True, None), 0), ((True, False), 1)])
def test_report_prints_every_claim_and_exits_1_on_a_failure(
    monkeypatch: pytest.MonkeyPatch, states: tuple[bool | None, ...], status: int
) -> None:
    claims = tuple(_claim(f"claim {i}", s) for i, s in enumerate(states))
    monkeypatch.setattr(report, "CLAIMS", claims)
    console = Console(record=True, width=120)
    assert report.check_claims(console, Run(Settings())) == status
    text = " ".join(console.export_text().split())  # titles wrap to the table's width
    assert "Evidence of claim 0" in text
    assert "Evidence of claim 1" in text
    assert "PASS claim 0 said" in text
    assert ("FAIL claim 1 said" in text) == (status == 1)
    assert ("1 claim(s) failed: claim 1" in text) == (status == 1)
    assert report.check_claims(Console(record=True), Run(Settings()), only="claim 0") == 0


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
    only_semantic = ablation_variants(SearchWeights().replace(lexical=0.0, phrase=0.0))
    assert "without semantic" not in only_semantic


def test_report_without_the_dev_folder_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dev"
    assert report.main(["--dev-dir", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"dev data not found at {missing}; pass --dev-dir <folder of the dev files>\n"


def test_report_names_a_dev_file_missing_from_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLENS_DATA_DIR", str(tmp_path / "data"))
    assert report.main(["--dev-dir", str(tmp_path), "--only", "summar", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"dev file not found: {tmp_path / 'summaries_en_'}")
    assert err.endswith("; pass --dev-dir <folder of the dev files>\n")
