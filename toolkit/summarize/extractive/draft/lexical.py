"""Vectors from words, for a summary that cannot wait for the embedding model.

Right after an import the background embedder may not have reached a period's messages
yet; a summary does not wait for it (nor embed thousands of messages inside a request).
When too many of its messages have no stored vector, the whole window is described in
one space of words instead: each message's content stems (``tokens.content_words``,
stemmed per script), TF-IDF weighted over the window, hashed into ``DIMENSION``
columns and L2-normalised. Threads, clusters and selection then compare messages by
the words they share — weaker than meaning, but immediate and the same for every
message of the window.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from toolkit.embeddings import Matrix
from toolkit.summarize.extractive.draft.tokens import content_words

DIMENSION = 512


def _column(stem: str) -> int:
    digest = hashlib.blake2b(stem.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") % DIMENSION


def lexical_vectors(texts: Sequence[str]) -> Matrix:
    """One L2-normalised TF-IDF vector of hashed content stems per text (a text without
    content words gets the zero vector).

    Args:
        texts: the messages' texts, in order.
    """
    stems = [Counter(stem for stem, _ in content_words(text)) for text in texts]
    df = Counter(stem for counted in stems for stem in counted)
    n = len(texts)
    out = np.zeros((n, DIMENSION), dtype=np.float32)
    for row, counted in enumerate(stems):
        for stem, tf in counted.items():
            idf = math.log((1 + n) / (1 + df[stem])) + 1.0
            out[row, _column(stem)] += (1 + math.log(tf)) * idf
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out
