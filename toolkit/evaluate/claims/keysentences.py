"""The key-sentence claim (issue 40): a quote of a long message holds the sentence that
carries its point, on chats the model was not fitted on.

Leave-one-source-out over the labelled messages of the real-chat corpus
(``toolkit.evaluate.keysentences``): the model fitted on the other sources weighs each
held-out message's sentences, the engine's quote is checked for the labelled key (whole),
at both quote lengths, as the sections' lines weigh sentences (the model alone) and as
the summary paragraph does (the window's vocabulary beside it). Both must do at least as
well as weighing by vocabulary alone (the engine before the model), the lines reach
``FLOOR``. Where the corpus is not cached (a fresh
clone, CI) one line says so.
"""

from __future__ import annotations

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict

FLOOR = 0.5
"""The least share of long messages whose quote holds the key sentence whole, per length."""


def key_sentences_hold(run: Run) -> Finding:
    """The model's leave-one-source-out hit rate beats vocabulary weighing and ``FLOOR``."""
    from toolkit.evaluate.corpus.store import CorpusMissing
    from toolkit.evaluate.keysentences.labels import read_labels
    from toolkit.evaluate.keysentences.measure import LIMITS, cases, hit_rates
    from toolkit.evaluate.keysentences.train import loso
    from toolkit.summarize.extractive.draft.keys import LINE_VOCABULARY, SUMMARY_VOCABULARY

    def compute() -> tuple[dict[str, dict[int, tuple[int, int]]], ...] | str:
        try:
            found = cases(read_labels())
        except CorpusMissing as exc:
            return f"key sentences: {exc}"
        return hit_rates(found), loso(found, LINE_VOCABULARY), loso(found, SUMMARY_VOCABULARY)

    measured = run.measure("key-sentences", compute)
    if isinstance(measured, str):
        return Finding("key sentences leave-one-source-out", [Verdict(None, measured)], [])
    before, lines, told = measured
    verdicts, shown = [], []
    for limit in LIMITS:
        (b, n), (a, _), (t, _) = before["all"][limit], lines["all"][limit], told["all"][limit]
        verdicts.append(
            Verdict(
                a >= b and a / n >= FLOOR,
                f"lines' quotes of {limit} characters hold the key sentence whole in {a} of "
                f"{n} long messages ({a / n:.2f} >= {FLOOR}; vocabulary alone: {b})",
            )
        )
        verdicts.append(
            Verdict(
                t >= b,
                f"the summary's quotes of {limit} characters hold it in {t} of {n} "
                f"(vocabulary alone: {b})",
            )
        )
        shown.append(
            {
                "length": limit,
                "messages": n,
                "vocabulary": b,
                "lines (LOSO)": a,
                "summary (LOSO)": t,
            }
        )
    evidence = Evidence(
        "Key sentences of long messages, leave-one-source-out",
        shown,
        ["length", "messages", "vocabulary", "lines (LOSO)", "summary (LOSO)"],
    )
    return Finding("key sentences leave-one-source-out", verdicts, [evidence])
