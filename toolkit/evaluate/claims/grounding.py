"""The cross-language grounding claim (issue 42): on the dev pairs of
``evaluate/data/grounding_pairs.jsonl`` (messages in one language, a line about them in
another, labelled faithful, invented or mistranslated), the LLM engine's check keeps the
faithful lines and drops the others, in every direction.

Verdicts: at least ``RECALL`` of the faithful lines kept, and at least ``PRECISION`` of
the kept lines faithful (an invented or mistranslated line kept is a false line a reader
believes).
"""

from __future__ import annotations

from collections import Counter

from toolkit.evaluate.claims.base import Evidence, Finding, Run, Verdict

RECALL = 0.9
"""The least share of faithful translated lines the check keeps."""
PRECISION = 0.85
"""The least share of kept lines that are faithful."""


def grounding_holds(run: Run) -> Finding:
    """Kept and dropped lines per direction and label, and the two verdicts."""
    from toolkit.evaluate.grounding import judge

    rows = run.measure("grounding pairs", judge)
    kept: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    for direction, label, problem, _score in rows:
        total[direction, label] += 1
        kept[direction, label] += problem is None
    table = [
        {"direction": d, "label": label, "lines": total[d, label], "kept": kept[d, label]}
        for d, label in sorted(total)
    ]
    faithful = sum(n for (_, label), n in total.items() if label == "faithful")
    faithful_kept = sum(n for (_, label), n in kept.items() if label == "faithful")
    all_kept = sum(kept.values())
    recall = faithful_kept / faithful if faithful else 0.0
    precision = faithful_kept / all_kept if all_kept else 0.0
    verdicts = [
        Verdict(
            recall >= RECALL,
            f"grounding across languages keeps {faithful_kept} of {faithful} faithful lines "
            f"({recall:.2f}, need ≥ {RECALL:.2f})",
        ),
        Verdict(
            precision >= PRECISION,
            f"of the {all_kept} lines kept, {faithful_kept} are faithful ({precision:.2f}, "
            f"need ≥ {PRECISION:.2f}; invented or mistranslated kept: {all_kept - faithful_kept})",
        ),
    ]
    evidence = Evidence(
        "Grounding across languages: dev pairs kept per direction and label",
        table,
        ["direction", "label", "lines", "kept"],
    )
    return Finding(
        "the grounding check keeps faithful translations, drops invented lines",
        verdicts,
        [evidence],
    )
