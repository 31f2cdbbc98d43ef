"""The ``Embedder`` protocol and what every backend shares.

Vectors are L2-normalised float32, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
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


QUERY_TOKENS = 128
"""Tokens of a query an embedder reads (its prefix and special tokens included).

The models read up to 512 tokens, and a query's embedding costs in proportion to its
tokens: a 1,000-character query of short words or 500 CJK characters is ~500 tokens,
~70 times a normal question's cost, and every search of the process waits behind it
on the engine. No real query comes near: the longest of the four dev files' 500
questions and sentences is 67 tokens. So a query is cut to its first 128 tokens
(``cut_to_tokens``) before it is embedded."""
QUERY_CHARS_PER_TOKEN = 8
"""Characters a token is taken to cover at most, to cut a long query before counting."""


def cut_to_tokens(text: str, limit: int, count: Callable[[str], int]) -> str:
    """The longest prefix of ``text`` that is at most ``limit`` tokens (by ``count``).

    The text is first cut to ``limit × QUERY_CHARS_PER_TOKEN`` characters; when still
    too long, the cut is moved in proportion to the excess until it fits (two or three
    counts: each is one pass of the tokenizer, not a call of the model).

    Args:
        text: a query.
        limit: the most tokens to keep (> 0).
        count: the model's token count of a text.
    """
    cut = text[: limit * QUERY_CHARS_PER_TOKEN]
    tokens = count(cut)
    while tokens > limit and cut:
        keep = max(1, min(len(cut) - 1, int(len(cut) * limit / tokens * 0.95)))
        cut = cut[:keep]
        tokens = count(cut)
    return cut


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
