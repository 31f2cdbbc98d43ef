"""Benchmark: an extractive period summary of 1,000 messages whose vectors are stored.

The messages are the 1,000 most recent text messages of the English demo source,
imported into a store under ``data/cache/`` and embedded once (the first run embeds
them, later runs read the vectors back). What is timed is a whole
``summarize_period`` call with the cache bypassed: selecting the messages, reading
their vectors, clustering, titles, quotes and prose. Target: 3 s on two cores.
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from typing import Any

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import MessageFilter
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.store.files import private_dir
from toolkit.summarize.extractive.draft.vectors import vectors_for
from toolkit.summarize.pipeline import summarize_period

TARGET_SECONDS = 1.0
DEMO_HANDLE = "@mlens_demo_en"


def _bench_store(settings: Settings) -> SQLiteStore:
    from toolkit.demo import demo_files
    from toolkit.ingest.export.read import import_export
    from toolkit.refs import parse_ref

    path = settings.data_dir / "cache" / "bench-summary.sqlite3"
    private_dir(path.parent)
    store = SQLiteStore(str(path))
    if store.find_source(parse_ref(DEMO_HANDLE)) is None:
        for file, handle in demo_files():
            if handle == DEMO_HANDLE:
                import_export(store, file, ref=handle)
    return store


def bench_summary(
    *,
    messages: int = 1000,
    repeats: int = 3,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Time the extractive summary of ``messages`` recent demo messages (vectors stored).

    Args:
        messages: how many messages the period holds.
        repeats: timed runs; the median is reported.
        settings: where the bench store lives (``data_dir/cache``); ``Settings()`` by default.
        embedder: the embedder (by default the configured one).

    Returns:
        ``{"name", "messages", "median_s", "best_s", "target_s", "sections", "ok"}``.
    """
    from toolkit.embeddings import get_embedder
    from toolkit.refs import parse_ref

    settings = settings if settings is not None else Settings()
    settings = settings.replace(summary={"engine": "extractive"})
    embedder = embedder if embedder is not None else get_embedder(settings)
    store = _bench_store(settings)
    try:
        source = store.get_source(parse_ref(DEMO_HANDLE))
        chosen = store.recent_messages(source.id, messages, MessageFilter(with_text_only=True))
        vectors_for(store, embedder, source.id, chosen, settings.embedding.batch_size)  # setup
        start, end = chosen[0].posted_at, chosen[-1].posted_at + timedelta(seconds=1)
        times: list[float] = []
        sections = 0
        for _ in range(max(1, repeats)):
            began = time.perf_counter()
            request = SummaryRequest(
                source_ref=DEMO_HANDLE,
                started_at=start,
                ended_at=end,
                language="en",
                use_cache=False,
            )
            summary = summarize_period(store, embedder, settings, request)
            times.append(time.perf_counter() - began)
            sections = len(summary.sections)
    finally:
        store.close()
    median = statistics.median(times)
    return {
        "name": f"extractive summary, {len(chosen)} messages (vectors stored)",
        "messages": len(chosen),
        "median_s": round(median, 3),
        "best_s": round(min(times), 3),
        "target_s": TARGET_SECONDS,
        "sections": sections,
        "ok": median <= TARGET_SECONDS,
    }


if __name__ == "__main__":
    print(bench_summary())


FRESH_TARGET_SECONDS = 10.0
WARM_TARGET_SECONDS = 2.0


def bench_fresh_summary(
    *, settings: Settings | None = None, embedder: Embedder | None = None
) -> dict[str, Any]:
    """Time a whole-range digest of the English demo export (2,643 messages) right after
    its import, before any message has a vector, then again once every vector is stored.

    The store is a new SQLite file in a temporary folder; the cache is bypassed; the
    embedding model and the engine's tables are loaded first, as ``mlens serve`` loads
    them when it starts (``toolkit.summarize.warm``). The first
    figure is what a user meets after ``mlens import`` (issue 33: it took 120 s and more
    when the engine computed every missing vector inside the request); the second is
    the same digest warm.

    Returns:
        ``{"messages", "without_vector", "fresh_s", "warm_s", "fresh_target_s",
        "warm_target_s", "fresh_ok", "warm_ok"}``.
    """
    import tempfile
    from pathlib import Path

    from toolkit.demo import demo_files
    from toolkit.embeddings import get_embedder
    from toolkit.ingest.export.read import import_export
    from toolkit.refs import parse_ref

    settings = settings if settings is not None else Settings()
    settings = settings.replace(summary={"engine": "extractive"})
    embedder = embedder if embedder is not None else get_embedder(settings)
    from toolkit.summarize.warm import warm_up

    embedder.embed_queries(["warm up"])  # the model's load is not the digest's time
    warm_up()  # nor the engine's tables: the service loads them when it starts
    file = next(path for path, handle in demo_files() if handle == DEMO_HANDLE)
    with tempfile.TemporaryDirectory(prefix="mlens-fresh-") as folder:
        store = SQLiteStore(str(Path(folder) / "fresh.sqlite3"))
        try:
            import_export(store, file, ref=DEMO_HANDLE)
            source = store.get_source(parse_ref(DEMO_HANDLE))
            stats = store.source_stats(source.id)
            first, last = stats.first_message_at, stats.last_message_at
            if first is None or last is None:
                raise RuntimeError("the demo export imported no message")
            request = SummaryRequest(
                source_ref=DEMO_HANDLE,
                started_at=first,
                ended_at=last + timedelta(seconds=1),
                language="en",
                use_cache=False,
            )
            began = time.perf_counter()
            fresh = summarize_period(store, embedder, settings, request)
            fresh_s = time.perf_counter() - began
            chosen = store.messages_in_period(source.id, request.message_filter())
            vectors_for(store, embedder, source.id, chosen, settings.embedding.batch_size)
            warm_times = []
            for _ in range(3):
                began = time.perf_counter()
                summarize_period(store, embedder, settings, request)
                warm_times.append(time.perf_counter() - began)
        finally:
            store.close()
    warm_s = statistics.median(warm_times)
    return {
        "messages": len(chosen),
        "without_vector": fresh.messages_without_vector,
        "fresh_s": round(fresh_s, 3),
        "warm_s": round(warm_s, 3),
        "fresh_target_s": FRESH_TARGET_SECONDS,
        "warm_target_s": WARM_TARGET_SECONDS,
        "fresh_ok": fresh_s <= FRESH_TARGET_SECONDS,
        "warm_ok": warm_s <= WARM_TARGET_SECONDS,
    }


def fresh_rows(result: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """The two ``make bench`` rows of ``bench_fresh_summary``."""
    return [
        (
            f"whole-range digest right after import, {result['messages']:,} messages",
            f"{result['fresh_s']:.2f} s ({result['without_vector']:,} without a vector)",
            f"≤ {result['fresh_target_s']:.0f} s",
            bool(result["fresh_ok"]),
        ),
        (
            "the same digest, every vector stored (median of 3)",
            f"{result['warm_s']:.2f} s",
            f"≤ {result['warm_target_s']:.0f} s",
            bool(result["warm_ok"]),
        ),
    ]
