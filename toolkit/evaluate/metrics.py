"""Ranking metrics with binary relevance: nDCG@k, MRR@k, Recall@k.

Each takes the ranked candidate ids (best first) and the set of relevant ids; a
query with no relevant candidate scores 0 (it cannot be answered).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence


def ndcg_at(ranked: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Normalised discounted cumulative gain at ``k`` (gain 1 per relevant hit)."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 2) for rank, c in enumerate(ranked[:k]) if c in relevant)
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(relevant), k)))
    return dcg / ideal


def mrr_at(ranked: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Reciprocal rank of the first relevant candidate within the top ``k`` (else 0)."""
    for rank, candidate in enumerate(ranked[:k]):
        if candidate in relevant:
            return 1.0 / (rank + 1)
    return 0.0


def recall_at(ranked: Sequence[str], relevant: Collection[str], k: int = 20) -> float:
    """Share of the relevant candidates found within the top ``k``."""
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


METRICS = {"nDCG@10": ndcg_at, "MRR@10": mrr_at, "Recall@20": recall_at}
"""The metrics every table reports, by column name (each with its default ``k``)."""


def evaluate_ranking(ranked: Sequence[str], relevant: Collection[str]) -> dict[str, float]:
    """Every metric of ``METRICS`` for one ranked list."""
    return {name: metric(ranked, relevant) for name, metric in METRICS.items()}


__all__ = ["METRICS", "evaluate_ranking", "mrr_at", "ndcg_at", "recall_at"]
