"""Background embedding: every default scan window first, then the rest, newest first; a
search meanwhile embeds nothing itself, ranks what has no vector by its words and says
how much was embedded; after it, searches are as if everything had been embedded."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from search_reference import BagOfWordsEmbedder

from toolkit import SearchRequest, Settings, Workspace
from toolkit.embeddings.background import BackgroundEmbedding, EmbeddingProgress
from toolkit.models import Message, SourceKind
from toolkit.search.searcher import Searcher
from toolkit.store import SQLiteStore

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TEXTS = [
    "the train to Berlin leaves at nine",
    "who books the hotel near the station",
    "bring a rain jacket, the forecast is wet",
    "museum island tickets cover five museums",
    "a currywurst stand under the U-Bahn",
    "rent bikes and ride along the wall",
]


class Gated(BagOfWordsEmbedder):
    """Records every passage it embeds; embeds passages only once ``gate`` is set."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.passages: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.waiting.set()
        assert self.gate.wait(60), "the test never opened the gate"
        self.passages += texts
        return super().embed_passages(texts)


def seed(store: SQLiteStore, handle: str, count: int) -> int:
    """A chat of ``count`` messages (text i is ``TEXTS[i % 6]``, the handle and i); its id.

    Each test takes its own handle: searches share one text cache per process.
    """
    source = store.upsert_source(title=handle, kind=SourceKind.CHAT, handle=handle)
    store.upsert_messages(
        Message(source.id, i, START + timedelta(minutes=i), f"{TEXTS[i % 6]} ({handle} {i})")
        for i in range(1, count + 1)
    )
    return source.id


def wait_for(embedding: BackgroundEmbedding, state: str) -> EmbeddingProgress:
    """Poll until the embedding reaches ``state`` (a generous bound, not a timing check)."""
    bound = time.monotonic() + 60
    while embedding.progress().state != state:
        assert time.monotonic() < bound, embedding.progress()
        time.sleep(0.01)
    return embedding.progress()


def test_windows_first_then_the_rest_newest_first(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    a, b = seed(store, "alpha", 5), seed(store, "beta", 4)
    embedder = Gated()
    embedder.gate.set()
    embedding = BackgroundEmbedding(store, lambda: embedder, lambda: [a, b], window=2, batch_size=1)
    progress = wait_for(embedding.start(), "done")
    order = [text.rsplit("(", 1)[1].rstrip(")") for text in embedder.passages]
    assert order == [
        *("alpha 5", "alpha 4", "beta 4", "beta 3"),  # each default scan window
        *("alpha 3", "alpha 2", "alpha 1", "beta 2", "beta 1"),  # then the rest
    ]
    assert progress == EmbeddingProgress("done", embedded=9, queued=9)
    assert store.count_without_vectors(a, embedder.model_name) == 0
    store.close()


def test_stop_ends_it_between_batches_and_keeps_what_was_stored(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    source = seed(store, "gamma", 30)
    embedder = Gated()
    embedding = BackgroundEmbedding(
        store, lambda: embedder, lambda: [source], window=5, batch_size=2
    )
    embedding.start()
    assert embedder.waiting.wait(60)  # the first batch waits at the gate
    assert not embedding.stop(timeout=0.05)  # still inside that batch
    embedder.gate.set()
    assert embedding.stop(timeout=30)
    progress = embedding.progress()
    assert progress.state == "stopped"
    assert not progress.running
    assert 0 < progress.embedded < progress.queued == 30
    assert store.count_without_vectors(source, embedder.model_name) == 30 - progress.embedded
    store.close()


def test_a_failure_is_reported_and_searches_embed_again(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    source = seed(store, "delta", 3)

    def broken() -> BagOfWordsEmbedder:
        raise RuntimeError("no model here")

    embedding = BackgroundEmbedding(store, broken, lambda: [source], window=2).start()
    progress = wait_for(embedding, "failed")
    assert progress.error == "no model here"
    assert not progress.running
    store.close()


def test_search_answers_before_embedding_and_fully_after(tmp_path: Path) -> None:
    embedder = Gated()
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    with Workspace(settings, embedder=embedder) as ws:
        seed(ws.store, "epsilon", 60)
        embedding = ws.embed_in_background()
        wait_for(embedding, "embedding")
        request = SearchRequest(source_ref="@epsilon", query="train to Berlin", explain=True)

        early = ws.search(request)  # the gate is shut: nothing can be embedded yet
        assert (early.scanned, early.embedded) == (60, 0)
        assert embedder.passages == []
        assert early[0].text.startswith("the train to Berlin")
        weights = settings.search.weights
        for hit in early:
            assert hit.signals is not None
            words = (
                weights.lexical * hit.signals["lexical"] + weights.phrase * hit.signals["phrase"]
            )
            expected = hit.signals["short_factor"] * words / (weights.lexical + weights.phrase)
            assert hit.score == pytest.approx(expected, abs=1e-6)
        assert ws.embedding_progress() == EmbeddingProgress("embedding", 0, 60)

        embedder.gate.set()
        assert wait_for(embedding, "done") == EmbeddingProgress("done", 60, 60)
        late = ws.search(request)
        assert (late.scanned, late.embedded) == (60, 60)
        fresh = Searcher(ws.store, BagOfWordsEmbedder(), weights=weights).search(request)
        assert [(h.messenger_message_id, h.score) for h in late] == [
            (h.messenger_message_id, h.score) for h in fresh
        ]
        assert fresh.embedded == 60


def test_without_a_background_embedding_a_search_embeds_its_window(tmp_path: Path) -> None:
    embedder = Gated()
    embedder.gate.set()
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    with Workspace(settings, embedder=embedder) as ws:
        seed(ws.store, "zeta_chat", 30)
        hits = ws.search(
            SearchRequest(source_ref="@zeta_chat", query="hotel", scan_messages_limit=10)
        )
        assert (hits.scanned, hits.embedded) == (10, 10)
        assert len(embedder.passages) == 10
        assert ws.embedding_progress() is None


def test_no_batch_starts_while_a_search_computes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    source = seed(store, "theta", 6)
    embedder = Gated()
    embedder.gate.set()
    searching = threading.Event()
    searching.set()
    asked = threading.Semaphore(0)

    def busy() -> bool:
        asked.release()
        return searching.is_set()

    embedding = BackgroundEmbedding(
        store, lambda: embedder, lambda: [source], window=2, pause=0, busy=busy
    ).start()
    for _ in range(5):  # it keeps asking, and embeds nothing meanwhile
        assert asked.acquire(timeout=60)
    assert embedder.passages == []
    searching.clear()
    assert wait_for(embedding, "done").embedded == 6
    store.close()
