"""Every system's summary of every dev dialogue, for reading them side by side.

``summaries.evaluate_summaries`` gives the mean ROUGE per system; this gives the texts
behind it: one row per dialogue and system, with the summary's length and ROUGE F1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.embeddings import Matrix
from toolkit.evaluate.summaries import (
    Dialogue,
    extractive_summary,
    first_k,
    rouge_scores,
    sumy_pick,
)


def summary_outputs(
    dialogues: Sequence[Dialogue], vectors: Matrix, *, k: int = 2
) -> list[dict[str, Any]]:
    """Every system's summary of every dialogue, with its length and ROUGE F1.

    Args:
        dialogues: from ``summaries.load_dialogues``.
        vectors: their turns' vectors, in order (``summaries.dialogue_vectors``).
        k: messages the baselines pick.

    Returns:
        Rows with ``OUTPUT_COLUMNS``. Systems: the extractive engine, the first ``k``
        messages, LexRank and TextRank picking ``k`` messages, and the reference itself
        (length only, no ROUGE).
    """
    rows: list[dict[str, Any]] = []
    offset = 0
    for dialogue in dialogues:
        turns = vectors[offset : offset + len(dialogue.messages)]
        offset += len(dialogue.messages)
        outputs = {
            "extractive": extractive_summary(dialogue, turns),
            f"first-{k}": first_k(dialogue.messages, k),
            f"lexrank-{k}": sumy_pick(dialogue.messages, k, "lexrank"),
            f"textrank-{k}": sumy_pick(dialogue.messages, k, "textrank"),
        }
        base = {"dialogue": dialogue.id, "turns": len(dialogue.messages)}
        for system, text in outputs.items():
            scores = rouge_scores(dialogue.references, text)
            rows.append(
                {**base, "system": system, "words": len(text.split()), **scores, "text": text}
            )
        reference = dialogue.references[0]
        rows.append(
            {**base, "system": "reference", "words": len(reference.split()), "text": reference}
        )
    return rows
