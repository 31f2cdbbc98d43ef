"""The grounding claim of ``make eval``: measured on the dev pairs, and failing when a
kept line is not faithful."""

from __future__ import annotations

import pytest

from toolkit.config import Settings
from toolkit.evaluate.claims.base import Run
from toolkit.evaluate.claims.grounding import grounding_holds


@pytest.mark.slow
def test_the_claim_holds_on_the_dev_pairs() -> None:
    finding = grounding_holds(Run(Settings()))
    assert not finding.failed, [str(v) for v in finding.verdicts]
    rows = finding.evidence[0].rows
    assert {r["label"] for r in rows} == {"faithful", "invented", "mistranslated"}
    assert sum(r["lines"] for r in rows) >= 30


def test_invented_lines_kept_fail_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [("en→ru", "faithful", None, 0.9)] * 4 + [("en→ru", "invented", None, 0.8)] * 2
    monkeypatch.setattr("toolkit.evaluate.grounding.judge", lambda: rows)
    finding = grounding_holds(Run(Settings()))
    assert finding.failed
    assert "invented or mistranslated kept: 2" in str(finding.verdicts[1])
