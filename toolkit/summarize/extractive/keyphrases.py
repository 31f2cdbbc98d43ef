"""Distinctive terms of message clusters: the words that make a section title.

A cluster's title words are its most distinctive stems by a class-based TF-IDF: the
share of the cluster's messages that use a stem, times the stem's inverse document
frequency over all messages. Each stem is shown in its most frequent surface form; two
chosen stems that mostly occur side by side ("баз данных", "feature flag") are shown
as that phrase.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from toolkit.summarize.extractive.tokens import content_words

Labels = npt.NDArray[np.int_]
Term = tuple[str, str]
# A pair of stems is one phrase when most messages that use both use them side by side.
PHRASE_SHARE = 0.6


def message_terms(texts: Sequence[str]) -> list[list[Term]]:
    """The content words (stem, surface) of each text, in text order."""
    return [content_words(text) for text in texts]


class _ClusterTerms:
    """Counts of one cluster: stems per message, surface forms, adjacent stem pairs."""

    def __init__(self, terms: Sequence[Sequence[Term]], indices: Sequence[int]) -> None:
        self.size = len(indices)
        self.df: Counter[str] = Counter()
        self.surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.pair_surfaces: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for i in indices:
            words = terms[i]
            self.df.update({stem for stem, _ in words})
            for stem, surface in words:
                self.surfaces[stem][surface] += 1
            seen: set[tuple[str, str]] = set()
            for (a, sa), (b, sb) in itertools.pairwise(words):
                if a != b and (a, b) not in seen:
                    seen.add((a, b))
                    self.pairs[(a, b)] += 1
                    self.pair_surfaces[(a, b)][f"{sa} {sb}"] += 1

    def surface(self, stem: str) -> str:
        return self.surfaces[stem].most_common(1)[0][0]

    def phrase(self, a: str, b: str) -> str | None:
        """The phrase form of two stems, when they mostly occur side by side."""
        for pair in ((a, b), (b, a)):
            together = self.pairs.get(pair, 0)
            if together >= 2 and together >= PHRASE_SHARE * min(self.df[a], self.df[b]):
                return self.pair_surfaces[pair].most_common(1)[0][0]
        return None


def _ranked(cluster: _ClusterTerms, df: Counter[str], n: int) -> list[str]:
    # A stem from one message of a large cluster says little about the cluster.
    floor = 2 if cluster.size >= 4 else 1
    scored = sorted(
        (
            (-(cluster.df[stem] / cluster.size) * math.log(1 + n / df[stem]), stem)
            for stem in cluster.df
            if cluster.df[stem] >= floor
        ),
    )
    return [stem for _, stem in scored]


def _title_words(
    cluster: _ClusterTerms, stems: list[str], top: int, keep: Callable[[str], bool]
) -> list[str]:
    chosen = [s for s in stems if keep(cluster.surface(s))][: top + 1]
    words: list[str] = []
    used: set[str] = set()
    for i, stem in enumerate(chosen):
        if stem in used:
            continue
        word = cluster.surface(stem)
        for other in chosen[i + 1 :]:
            phrase = None if other in used else cluster.phrase(stem, other)
            if phrase is not None and keep(phrase):
                word = phrase
                used.add(other)
                break
        used.add(stem)
        if word not in words:
            words.append(word)
        if len(words) == top:
            break
    return words


def distinctive_terms(
    terms: Sequence[Sequence[Term]],
    labels: Labels,
    *,
    top: int = 3,
    keep: Callable[[str], bool] = lambda _: True,
) -> dict[int, list[str]]:
    """The ``top`` most distinctive words (or two-word phrases) of each cluster.

    Args:
        terms: each message's (stem, surface) pairs in text order, aligned with ``labels``.
        labels: each message's cluster.
        top: words per cluster.
        keep: a filter on surface words (e.g. no period wording in source summaries).

    Returns:
        For each label, its words in order of distinctiveness (possibly fewer than ``top``).
    """
    df: Counter[str] = Counter()
    for message in terms:
        df.update({stem for stem, _ in message})
    members: dict[int, list[int]] = defaultdict(list)
    for index, label in enumerate(labels.tolist()):
        members[int(label)].append(index)
    out: dict[int, list[str]] = {}
    for label, indices in members.items():
        cluster = _ClusterTerms(terms, indices)
        out[label] = _title_words(cluster, _ranked(cluster, df, len(terms)), top, keep)
    return out
