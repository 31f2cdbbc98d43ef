"""The claims the docs make about quality (``docs/evaluation.md``), which ``make eval`` checks.

``CLAIMS`` lists them in the order they run and print; ``base`` says what a claim is.
To add one, write ``def check(run: Run) -> Finding`` in a module of this package and
add ``Claim("what it claims", check, part)`` here: ``part`` names the part of
``docs/results/eval.json`` (``toolkit.evaluate.published``) its measurements go to.
"""

from __future__ import annotations

from toolkit.evaluate.claims.acts import acts_hold
from toolkit.evaluate.claims.base import Claim, Evidence, Finding, Run, Verdict, run_claims
from toolkit.evaluate.claims.candidates import candidates_hold
from toolkit.evaluate.claims.crosslang import cross_language_holds
from toolkit.evaluate.claims.digests import labelled_set_holds
from toolkit.evaluate.claims.grounding import grounding_holds
from toolkit.evaluate.claims.keysentences import key_sentences_hold
from toolkit.evaluate.claims.ranking import hybrid_beats_baselines, published_table_holds
from toolkit.evaluate.claims.summaries import summary_quality

CLAIMS: tuple[Claim, ...] = (
    Claim("hybrid ranking", hybrid_beats_baselines, "ranking"),
    Claim("published ranking table", published_table_holds, "ranking"),
    Claim("cross-language ranking", cross_language_holds),
    Claim("ranking candidates", candidates_hold, "candidates"),
    Claim("summary quality", summary_quality, "summaries"),
    Claim("labelled digest windows", labelled_set_holds, "digests"),
    Claim("acts leave-one-source-out", acts_hold),
    Claim("key sentences leave-one-source-out", key_sentences_hold),
    Claim("grounding across languages", grounding_holds),
)

__all__ = ["CLAIMS", "Claim", "Evidence", "Finding", "Run", "Verdict", "run_claims"]
