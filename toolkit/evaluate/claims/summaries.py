"""The README's summary claim: the extractive engine scores at least as well as every
baseline (first-k, LexRank, TextRank) in ROUGE-L on the summary dev dialogues."""

from __future__ import annotations

from pathlib import Path

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict
from toolkit.evaluate.results import ROUGE_TYPES


def summary_quality(run: Run) -> Finding:
    """ROUGE F1 of the summary engines and the baselines; the verdict on ROUGE-L."""
    from toolkit.evaluate.summaries import (
        DEV_FILE,
        evaluate_summaries,
        load_dialogues,
        summary_verdict,
    )

    dev_file = Path(run.dev_dir) / DEV_FILE.name
    dialogues = load_dialogues(dev_file, limit=run.limit)
    rows = evaluate_summaries(
        dialogues, run.embedder, settings=run.settings, cache_dir=run.cache_dir
    )
    label, message = summary_verdict(rows).split(" ", 1)
    title = f"Summaries: ROUGE F1 on {dev_file.name} ({len(dialogues)} dialogues)"
    evidence = Evidence(title, rows, ["system", "k", "n", *ROUGE_TYPES], ROUGE_TYPES, 4)
    return Finding(
        "summary engine ≥ every baseline (ROUGE-L)",
        [Verdict(label == "PASS", message)],
        [evidence],
    )
