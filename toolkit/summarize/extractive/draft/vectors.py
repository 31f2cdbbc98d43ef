"""Message vectors for the extractive engine: from the store, computed when missing.

Ingest normally stores every message's vector; a message that lacks one (imported
before the model changed, or by a path that skipped embedding) is embedded here once
and stored by the store's background writer (``write_behind``), so the next summary or
search reads it back.

A summary never waits for the background embedder (``window_vectors``): up to
``EMBED_AT_ONCE`` missing vectors are computed at once (a few seconds on 2 cores);
when more are missing — right after a large import — the whole window is described by
its words instead (``lexical.lexical_vectors``), and the summary says how many
messages had no vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from toolkit.embeddings import Embedder, Matrix
from toolkit.models import Message
from toolkit.store.base import MessageStore
from toolkit.summarize.extractive.draft.lexical import lexical_vectors


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


EMBED_AT_ONCE = 128
"""Missing vectors a summary computes itself; past this, it reads the window's words."""


def window_vectors(
    store: MessageStore,
    embedder: Embedder,
    source_id: int,
    messages: Sequence[Message],
    batch_size: int = 64,
    *,
    embed_at_once: int = EMBED_AT_ONCE,
) -> tuple[Matrix, int]:
    """The vectors a summary of ``messages`` works with, and how many messages it read
    without a vector of ``embedder``'s model (0 when every one has one).

    Up to ``embed_at_once`` missing vectors are embedded here (``vectors_for``); with
    more missing, every message gets a vector of its words (``lexical_vectors``), so
    one space describes the window and the request never waits for the embedder.
    """
    ids = [m.messenger_message_id for m in messages]
    missing = len(ids) - len(store.get_vectors(source_id, ids, embedder.model_name))
    if missing <= embed_at_once:
        return vectors_for(store, embedder, source_id, messages, batch_size), 0
    return lexical_vectors([m.text for m in messages]), missing
