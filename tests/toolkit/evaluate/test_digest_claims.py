"""The labelled-set claim fails when a number is below its bar; its measurements are
published."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from digest_data import digest, score

from toolkit.config import Settings
from toolkit.evaluate.claims import CLAIMS, Run
from toolkit.evaluate.claims.digests import labelled_set_holds, row_verdicts, verdicts
from toolkit.evaluate.digests.acts import Measured
from toolkit.evaluate.digests.score import Item
from toolkit.evaluate.published import digests_part, read_published, write_published
from toolkit.models import SectionKind


def _row(scope: str = "same language", **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"scope": scope, "windows": 19, "no false item": 1.0, "key facts": 0.7}
    for short in ("open", "decisions", "plans"):
        row |= {f"{short} P": 0.95, f"{short} n": 20, f"{short} R": 0.5}
    row |= {"e-mails": 0, "phones": 0, "asks Y … Y": 0, "wrong dates": 0}
    return row | values


def _failed(row: dict[str, Any]) -> list[str]:
    return [v.message for v in row_verdicts(row) if v.passed is False]


def test_the_claim_passes_at_the_bars() -> None:
    assert _failed(_row()) == []
    assert _failed(_row(**{"plans P": 0.9, "key facts": 0.6})) == []


@pytest.mark.parametrize(
    ("column", "value"),
    [("open P", 0.89), ("decisions P", 0.5), ("plans P", 0.0), ("key facts", 0.59),
     ("e-mails", 1), ("phones", 2), ("asks Y … Y", 1)],
)  # fmt: skip
def test_the_claim_fails_below_a_bar(column: str, value: float) -> None:
    failed = _failed(_row(**{column: value}))
    assert len(failed) == 1


def test_no_item_says_nothing_false_and_no_facts_fail() -> None:
    assert _failed(_row(**{"open P": None, "open n": 0})) == []
    assert len(_failed(_row(**{"key facts": None}))) == 1


def test_across_languages_the_bars_are_precision_and_zeros() -> None:
    across = _row("across languages", **{"key facts": 0.1})
    assert _failed(across) == []
    assert len(_failed(_row("across languages", **{"decisions P": 0.8}))) == 1
    table = [_row(), _row("  en", **{"open P": 0.0}), across]
    assert len(verdicts(table)) == 5 + 4  # per-language rows are shown, not judged


def test_the_claim_is_checked_by_make_eval_and_fails_on_a_false_item(tmp_path: Path) -> None:
    assert any(c.check is labelled_set_holds and c.part == "digests" for c in CLAIMS)
    run = Run(Settings(_env_file=None, data_dir=tmp_path), results_file=tmp_path / "eval.json")  # type: ignore[call-arg]
    false = digest(score(Item(SectionKind.OPEN_QUESTIONS, (1,), "Kai H. asks which bus")))
    run.measure("digests", lambda: Measured([false], []))
    finding = labelled_set_holds(run)
    assert finding.failed
    assert any("open precision 0.00 of 1 items" in str(v) for v in finding.verdicts)
    assert any("Kai H. asks which bus" in note for note in finding.notes)


def test_the_digests_part_is_published(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    calibration = {"cases": 21, "right": 15, "rows": []}
    write_published(
        {"digests": digests_part([_row()], calibration=calibration, windows=19, model_name="m")},
        path,
    )
    published = read_published(path)
    assert published.digests[0]["plans P"] == 0.95
    assert published.parts["digests"]["engine"]["labels"]
