"""The act-scorer claim of ``make eval``: without the real corpus it says so and checks the rest."""

from __future__ import annotations

import pytest

from toolkit.evaluate.claims.acts import acts_hold
from toolkit.evaluate.claims.base import Run


@pytest.mark.slow
def test_without_the_corpus_the_claim_skips_it_in_one_line_and_checks_the_windows(
    uncached_run: Run,
) -> None:
    finding = acts_hold(uncached_run)
    skipped = [v for v in finding.verdicts if v.passed is None]
    assert len(skipped) == 1
    assert "not cached" in skipped[0].message
    scopes = {row["scope"] for row in finding.evidence[0].rows}
    assert scopes == {"19 windows"}  # no real chats, no dev cases: the hand-written windows
    assert not finding.failed, [str(v) for v in finding.verdicts]
