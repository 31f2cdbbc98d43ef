"""Message vectors for the extractive engine: from the store, computed when missing.

Ingest normally stores every message's vector; a message that lacks one (imported
before the model changed, or by a path that skipped embedding) is embedded here once
and stored by the store's background writer (``write_behind``), so the next summary or
search reads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from toolkit.embeddings import Embedder
from toolkit.models import Message
from toolkit.store.base import MessageStore
from toolkit.summarize.extractive.clusters import Matrix


def vectors_for(
    store: MessageStore,
    embedder: Embedder,
    source_id: int,
    messages: Sequence[Message],
    batch_size: int = 64,
) -> Matrix:
    """One vector per message of ``embedder``'s model, in the order of ``messages``.

    Args:
        store: where vectors are read and the missing ones written.
        embedder: the model; its ``model_name`` keys the stored vectors.
        source_id: the messages' source.
        messages: messages with text.
        batch_size: messages per embedding call.
    """
    ids = [m.messenger_message_id for m in messages]
    stored = store.get_vectors(source_id, ids, embedder.model_name)
    missing = [m for m in messages if m.messenger_message_id not in stored]
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        matrix = embedder.embed_passages([m.text for m in batch])
        fresh = [(m.messenger_message_id, matrix[i]) for i, m in enumerate(batch)]
        # A summary is a read: the vectors are stored by the background writer.
        store.write_behind(partial(store.put_vectors, source_id, embedder.model_name, fresh))
        stored.update(fresh)
    if not ids:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.vstack([stored[i] for i in ids]).astype(np.float32, copy=False)
