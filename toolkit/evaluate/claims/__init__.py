"""The claims the README makes about quality, which ``make eval`` checks.

``CLAIMS`` lists them in the order they run and print; ``base`` says what a claim is.
To add one, write ``def check(run: Run) -> Finding`` in a module of this package and
add ``Claim("what it claims", check)`` here.
"""

from __future__ import annotations

from toolkit.evaluate.claims.base import Claim, Evidence, Finding, Run, Verdict, run_claims
from toolkit.evaluate.claims.ranking import hybrid_beats_baselines, readme_table_holds
from toolkit.evaluate.claims.summaries import summary_quality

CLAIMS: tuple[Claim, ...] = (
    Claim("hybrid ranking", hybrid_beats_baselines),
    Claim("README ranking table", readme_table_holds),
    Claim("summary quality", summary_quality),
)

__all__ = ["CLAIMS", "Claim", "Evidence", "Finding", "Run", "Verdict", "run_claims"]
