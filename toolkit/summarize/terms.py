"""Distinctive terms of message clusters: the words that make a section title.

A cluster's title words are its most distinctive stems by a class-based TF-IDF: the
share of the cluster's messages that use a stem, times the stem's inverse document
frequency over all messages. Each stem is shown in its most frequent surface form.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from toolkit.summarize.textutil import content_words

Labels = npt.NDArray[np.int_]
Term = tuple[str, str]


def message_terms(texts: Sequence[str]) -> list[list[Term]]:
    """The content words (stem, surface) of each text."""
    return [content_words(text) for text in texts]


def distinctive_terms(
    terms: Sequence[Sequence[Term]],
    labels: Labels,
    *,
    top: int = 3,
    keep: Callable[[str], bool] = lambda _: True,
) -> dict[int, list[str]]:
    """The ``top`` most distinctive surface words of each cluster.

    Args:
        terms: each message's (stem, surface) pairs, aligned with ``labels``.
        labels: each message's cluster.
        top: words per cluster.
        keep: a filter on surface words (e.g. no period wording in source summaries).

    Returns:
        For each label, its words in order of distinctiveness (possibly fewer than ``top``).
    """
    n = len(terms)
    df: Counter[str] = Counter()
    for words in terms:
        df.update({stem for stem, _ in words})
    members: dict[int, list[int]] = defaultdict(list)
    for index, label in enumerate(labels.tolist()):
        members[int(label)].append(index)
    out: dict[int, list[str]] = {}
    for label, indices in members.items():
        cluster_df: Counter[str] = Counter()
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        for i in indices:
            cluster_df.update({stem for stem, _ in terms[i]})
            for stem, surface in terms[i]:
                surfaces[stem][surface] += 1
        # A stem from one message of a large cluster says little about the cluster.
        floor = 2 if len(indices) >= 4 else 1
        scored = sorted(
            (
                (cluster_df[stem] / len(indices) * math.log(1 + n / df[stem]), stem)
                for stem in cluster_df
                if cluster_df[stem] >= floor
            ),
            key=lambda pair: (-pair[0], pair[1]),
        )
        words: list[str] = []
        for _, stem in scored:
            surface = surfaces[stem].most_common(1)[0][0]
            if keep(surface) and surface not in words:
                words.append(surface)
            if len(words) == top:
                break
        out[label] = words
    return out
