"""Naive, obviously correct reference implementations of the search signals, a
bag-of-words embedder whose geometry the searcher's property tests rely on, and the
weights every way in must refuse."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np
from hypothesis import strategies as st

from toolkit.text import terms


def ref_semantic(cos: float, floor: float, exponent: float) -> float:
    if cos <= floor:
        return 0.0
    return min(1.0, (cos - floor) / (1 - floor)) ** exponent


def ref_lexical(messages: list[list[int]], query: list[int]) -> list[float]:
    distinct = list(dict.fromkeys(query))
    n = len(messages)
    idf = {}
    for t in distinct:
        df = sum(1 for m in messages if t in m)
        idf[t] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    total = sum(idf.values())
    if not distinct:
        return [0.0] * n
    return [sum(idf[t] for t in distinct if t in m) / total for m in messages]


def ref_longest_run(message: list[int], query: list[int]) -> int:
    best = 0
    for i in range(len(query)):
        for j in range(len(message)):
            k = 0
            while i + k < len(query) and j + k < len(message) and query[i + k] == message[j + k]:
                k += 1
            best = max(best, k)
    return best


def ref_phrase(message: list[int], query: list[int]) -> float:
    n = len(query)
    if n == 0:
        return 0.0
    run = ref_longest_run(message, query)
    if n == 1:
        return 1.0 if run == 1 else 0.0
    return run / n if run >= 2 else 0.0


def ref_short(n: int, floor: float, scale: float) -> float:
    return floor + (1 - floor) * (1 - math.exp(-n / scale))


INVALID_WEIGHTS = [
    {"semantic": -0.1},
    {"semantic": 0.0, "lexical": 0.0, "phrase": 0.0},
    {"lexical": math.nan},
    {"phrase": math.inf},
    {"short_floor": 1.5},
    {"short_scale": 0.0},
    {"semantic_exponent": 0.0},
    {"unknown": 1.0},
]
"""Weights that ``SearchWeights.build`` and a request's ``resolve_weights`` both refuse:
negative, all relevance weights zero, not finite, out of range, an unknown name."""

terms_ = st.integers(min_value=0, max_value=6)
windows = st.lists(st.lists(terms_, max_size=12), min_size=1, max_size=15)
queries = st.lists(st.integers(min_value=-2, max_value=6), max_size=6)


class BagOfWordsEmbedder:
    """A deterministic embedder: the normalised sum of one fixed random vector per term.

    Because a text's vector is the sum of its terms' vectors, appending the query's own
    words to a message moves the message's vector towards the query's: its cosine with
    the query never drops. The phrase property of the searcher relies on that.
    """

    model_name = "test/bag-of-words"
    dimension = 64

    def _vector(self, text: str) -> np.ndarray:
        total = np.zeros(self.dimension)
        for term in terms(text):
            rng = np.random.default_rng(zlib.crc32(term.encode()))
            total += rng.standard_normal(self.dimension)
        norm = np.linalg.norm(total)
        return (total / norm if norm else total).astype(np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._vector(t) for t in texts], dtype=np.float32).reshape(-1, 64)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_queries(texts)
