"""Topic clusters of message vectors, and each message's centrality and importance.

e5 vectors share a large common direction, so they are centred on their mean and
normalised again before clustering: what is left is what tells messages apart.
The number of clusters is chosen by silhouette (cosine) among 2..6 where there are
enough messages; a handful of messages is one topic.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.metrics import silhouette_score
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from toolkit.embeddings import Matrix
from toolkit.models import Message

Floats = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int_]

MAX_CLUSTERS = 6
MIN_MESSAGES_PER_CLUSTER = 8
SILHOUETTE_SAMPLE = 1000
# Clustering runs on the top principal components: topics live there, and k-means over
# 32 dimensions instead of 384 keeps 1,000 messages well under a second.
PCA_COMPONENTS = 32
# Below this silhouette the "clusters" are noise; one topic reads better.
MIN_SILHOUETTE = 0.05


def centred(vectors: Matrix) -> Matrix:
    """Vectors minus their mean, normalised again (rows of zeros stay zero)."""
    if len(vectors) == 0:
        return vectors
    out = vectors - vectors.mean(axis=0, keepdims=True)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Matrix = (out / norms).astype(np.float32)
    return result


def cluster(vectors: Matrix, *, max_clusters: int = MAX_CLUSTERS) -> Labels:
    """Cluster labels ``0..k-1`` of (centred) vectors; label 0 is the largest cluster.

    Args:
        vectors: one normalised row per message.
        max_clusters: the most topics to find.
    """
    # One thread: k-means on a few thousand rows takes milliseconds, while OpenMP's
    # worker threads on a busy machine (a service under load, a test run) spin for
    # seconds waiting for cores (measured: 4.1 s with threads, 0.05 s without).
    with threadpool_limits(limits=1):
        return _cluster(vectors, max_clusters)


def _cluster(vectors: Matrix, max_clusters: int) -> Labels:
    n = len(vectors)
    upper = min(max_clusters, n // MIN_MESSAGES_PER_CLUSTER)
    if upper < 2:
        return np.zeros(n, dtype=np.int_)
    components = min(PCA_COMPONENTS, n - 1, vectors.shape[1])
    reduced = PCA(n_components=components, random_state=0).fit_transform(vectors)
    best: tuple[float, Labels] | None = None
    for k in range(2, upper + 1):
        labels = KMeans(n_clusters=k, n_init=3, random_state=0).fit_predict(reduced)
        if len(set(labels.tolist())) < 2:
            continue
        score = float(
            silhouette_score(
                reduced,
                labels,
                metric="cosine",
                sample_size=min(n, SILHOUETTE_SAMPLE),
                random_state=0,
            )
        )
        if best is None or score > best[0]:
            best = (score, labels)
    if best is None or best[0] < MIN_SILHOUETTE:
        return np.zeros(n, dtype=np.int_)
    return _by_size(best[1])


def _by_size(labels: Labels) -> Labels:
    order = [label for label, _ in Counter(labels.tolist()).most_common()]
    remap = {old: new for new, old in enumerate(order)}
    return np.array([remap[label] for label in labels.tolist()], dtype=np.int_)


def centrality(vectors: Matrix, labels: Labels) -> Floats:
    """Cosine of each vector to its cluster's mean direction."""
    out = np.zeros(len(vectors), dtype=np.float64)
    for label in set(labels.tolist()):
        members = labels == label
        centre = vectors[members].mean(axis=0)
        norm = float(np.linalg.norm(centre))
        if norm > 0:
            out[members] = vectors[members] @ (centre / norm)
    return out


def _scaled(values: Floats) -> Floats:
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-9:
        return np.ones_like(values)
    return (values - low) / (high - low)


def importance(
    messages: Sequence[Message], central: Floats, content_tokens: Sequence[int]
) -> Floats:
    """Importance in [0, 1]: centrality (0.6) and replies received (0.4), damped by length.

    A message with few content words keeps 30 % of its score at most ("yes", "ok" and
    "+1" sit at the centre of their own tight cluster), one of 40 words or more all of it.

    Args:
        messages: the messages, aligned with ``central`` and ``content_tokens``.
        central: each message's centrality in its cluster.
        content_tokens: each message's number of content words.
    """
    if not messages:
        return np.zeros(0, dtype=np.float64)
    replies = Counter(m.reply_to for m in messages if m.reply_to is not None)
    got = np.array([replies.get(m.messenger_message_id, 0) for m in messages], dtype=np.float64)
    length = np.array(
        [min(1.0, math.log1p(t) / math.log1p(40)) for t in content_tokens], dtype=np.float64
    )
    base = 0.6 * _scaled(central) + 0.4 * np.minimum(1.0, got / 3.0)
    return base * (0.3 + 0.7 * length)
