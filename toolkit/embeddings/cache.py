"""``CachedQueryEmbedder``: an embedder whose query vectors are kept in an LRU cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from toolkit.embeddings.base import Embedder, Matrix, similarity_floor


class CachedQueryEmbedder:
    """An embedder whose query vectors are kept in an LRU cache (thread-safe).

    Searches repeat queries (paging, the app re-running on every widget change); a
    cached query costs a dictionary lookup instead of a model call.

    Args:
        inner: the embedder that does the work.
        maxsize: queries kept; 0 disables the cache.
    """

    def __init__(self, inner: Embedder, maxsize: int = 512) -> None:
        self.inner = inner
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[str, Matrix] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        """The inner embedder's model name."""
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        """The inner embedder's dimension."""
        return self.inner.dimension

    @property
    def similarity_floor(self) -> float:
        """The inner embedder's similarity floor."""
        return similarity_floor(self.inner)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Query vectors, from the cache where possible."""
        rows: dict[int, Matrix] = {}
        missing: list[int] = []
        with self._lock:
            for i, text in enumerate(texts):
                cached = self._cache.get(text)
                if cached is None:
                    missing.append(i)
                else:
                    self._cache.move_to_end(text)
                    rows[i] = cached
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        if missing:
            fresh = self.inner.embed_queries([texts[i] for i in missing])
            with self._lock:
                for row, i in enumerate(missing):
                    rows[i] = fresh[row]
                    if self.maxsize > 0:
                        self._cache[texts[i]] = fresh[row]
                        self._cache.move_to_end(texts[i])
                while len(self._cache) > self.maxsize:
                    self._cache.popitem(last=False)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack([rows[i] for i in range(len(texts))]).astype(np.float32, copy=False)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Passage vectors (never cached: the store keeps those)."""
        return self.inner.embed_passages(texts)
