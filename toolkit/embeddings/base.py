"""The ``Embedder`` protocol and what every backend shares.

Vectors are L2-normalised float32, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]

# e5 models were trained with these prefixes; their cosines crowd into [0.7, 1]
# (the e5 model card says so), so 0.7 is where "unrelated" starts for them.
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
E5_SIMILARITY_FLOOR = 0.7
_E5_NAME_RE = re.compile(r"(^|[/_.-])e5([/_.-]|$)", re.IGNORECASE)


MAX_PASSAGE_CHARS = 2000
"""Characters of a text an embedder reads. The models read their first 512 tokens at
most (~2,000 characters of prose); tokenising a 10 MB message only to drop all but
that cost minutes of CPU, so the text is cut before the tokenizer sees it."""


def passage_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` cut to ``MAX_PASSAGE_CHARS`` characters each (what an embedder reads)."""
    return [t if len(t) <= MAX_PASSAGE_CHARS else t[:MAX_PASSAGE_CHARS] for t in texts]


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


def normalise_rows(matrix: npt.ArrayLike) -> Matrix:
    """Rows of ``matrix`` as float32 unit vectors (zero rows stay zero)."""
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (arr / norms).astype(np.float32, copy=False)
    return out


def similarity_floor(embedder: Embedder) -> float:
    """The cosine below which the embedder's model sees no similarity.

    An embedder may declare it as a ``similarity_floor`` attribute (e5 models: 0.7);
    otherwise 0, the natural floor of a model whose unrelated texts are orthogonal.
    """
    value = getattr(embedder, "similarity_floor", 0.0)
    return float(value) if isinstance(value, int | float) else 0.0


def is_e5_style(model: str) -> bool:
    """Whether a model name or path looks like an e5 model (``intfloat/multilingual-e5-small``)."""
    return bool(_E5_NAME_RE.search(str(model).rstrip("/")))
