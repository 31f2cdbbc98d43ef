"""The in-memory search index: the same ranking as the scan-window scorer it replaced,
kept current on writes by this process and by others, bounded in memory."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from search_reference import BagOfWordsEmbedder

from toolkit.embeddings import similarity_floor
from toolkit.ingest.export.read import import_export
from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.refs import message_link
from toolkit.requests import SearchRequest
from toolkit.search.index import MAX_BLOCKS, MIN_BLOCK_ROWS, SearchIndex
from toolkit.search.scorer import compute_signals, fuse
from toolkit.search.searcher import SCORE_DECIMALS, Searcher
from toolkit.search.textcache import TextCache
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore
from toolkit.weights import SearchWeights

T0 = datetime(2024, 5, 1, tzinfo=UTC)
WORDS = [
    *("red", "apple", "green", "car", "engine", "river", "ok", "train", "ticket"),
    *("кошка", "дом", "река", "поезд", "билет"),
]
BOW = BagOfWordsEmbedder()


def reference_ranking(
    store: SQLiteStore,
    source_id: int,
    query: str,
    scan: int,
    weights: SearchWeights,
    **filters: object,
) -> list[tuple[int, float]]:
    """The search as it was before the index: the store's scan window, a text cache,
    every vector embedded; (message id, score) best first, ties newest first."""
    rows = store.scan_window(source_id, scan, MessageFilter(**filters))  # type: ignore[arg-type]
    if not rows:
        return []
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    posted = np.array([r[1] for r in rows], dtype=np.int64)
    texts = [r[2] for r in rows]
    cache = TextCache()
    vectors = BOW.embed_passages(texts)
    signals = compute_signals(
        np.einsum("ij,j->i", vectors, BOW.embed_queries([query])[0]),
        cache.window(texts),
        cache.query_terms(query),
        weights,
        semantic_floor=similarity_floor(BOW),
    )
    scores = np.round(fuse(signals, weights), SCORE_DECIMALS)
    order = np.lexsort((-ids, -posted, -scores))
    return [(int(ids[i]), float(scores[i])) for i in order]


def random_source(store: SQLiteStore, rng: random.Random, n: int, handle: str = "rnd") -> int:
    source = store.upsert_source(title="Random", kind=SourceKind.CHAT, handle=handle)
    store.upsert_messages(
        Message(
            source.id,
            i + 1,
            T0 + timedelta(minutes=rng.randrange(n // 2 + 1)),  # equal times happen
            " ".join(rng.choices(WORDS, k=rng.randrange(0, 9))),
            sender_peer_id=f"user{rng.randrange(1, 5)}",
            is_service=rng.random() < 0.05,
            topic_id=rng.choice([None, 1, 7]),
        )
        for i in range(n)
    )
    return source.id


@pytest.mark.parametrize("seed", range(6))
def test_the_index_ranks_exactly_as_the_scan_window_scorer(seed: int) -> None:
    rng = random.Random(seed)
    store = SQLiteStore(":memory:")
    source_id = random_source(store, rng, 400)
    searcher = Searcher(store, BOW, index=SearchIndex(store))
    weights = SearchWeights()
    for _ in range(8):
        query = " ".join(rng.choices([*WORDS, "absent", "words"], k=rng.randrange(1, 5)))
        scan = rng.choice([1, 17, 150, 400])
        filters: dict[str, object] = {}
        if rng.random() < 0.5:
            filters["since"] = T0 + timedelta(minutes=rng.randrange(100))
        if rng.random() < 0.5:
            filters["until"] = T0 + timedelta(minutes=rng.randrange(100, 200), seconds=30)
        if rng.random() < 0.3:
            filters["topic_id"] = rng.choice([1, 7])
        if rng.random() < 0.3:
            filters["sender_peer_ids"] = rng.sample(["user1", "user2", "user3", "user9"], 2)
        expected = reference_ranking(store, source_id, query, scan, weights, **filters)
        source = store.get_source_by_id(source_id)
        request = SearchRequest(
            source_ref=source,
            query=query,
            limit=100,
            scan_messages_limit=scan,
            period_from=filters.get("since"),  # type: ignore[arg-type]
            period_to=filters.get("until"),  # type: ignore[arg-type]
            topic_id=filters.get("topic_id"),  # type: ignore[arg-type]
            sender_peer_ids=filters.get("sender_peer_ids"),  # type: ignore[arg-type]
        )
        hits = searcher.search(request)
        got = [(int(h.messenger_message_id), h.score) for h in hits]
        assert [m for m, _ in got] == [m for m, _ in expected[:100]]
        assert np.allclose([s for _, s in got], [s for _, s in expected[:100]], atol=1e-6)
        # A hit's text, time and link come from the index: the stored message's.
        stored = {
            m.messenger_message_id: m for m in store.get_messages(source_id, [m for m, _ in got])
        }
        for hit in hits:
            message = stored[int(hit.messenger_message_id)]
            assert (hit.text, hit.posted_at) == (message.text, message.posted_at)
            link = message_link(source, message.messenger_message_id, topic_id=message.topic_id)
            assert hit.message_link == link


def test_a_block_of_rows_keeps_its_term_window_until_the_index_is_replaced() -> None:
    """The usual window (the newest ``scan`` messages) is analysed once: later searches
    of the same block reuse its term window, equal to a fresh analysis. Only the last
    ``MAX_BLOCKS`` blocks of ``MIN_BLOCK_ROWS`` rows or more are kept."""
    rng = random.Random(5)
    store = SQLiteStore(":memory:")
    source_id = random_source(store, rng, MIN_BLOCK_ROWS + 300)
    index = SearchIndex(store)
    source = index.source(source_id)

    def terms(rows: np.ndarray) -> object:
        return source.window(rows, BOW.model_name, BOW.dimension).terms

    block = np.arange(10, 10 + MIN_BLOCK_ROWS + 100, dtype=np.int64)
    first = terms(block)
    assert terms(block) is first
    small = block[: MIN_BLOCK_ROWS - 1]  # cheap to lay out: never kept
    assert terms(small) is not terms(small)
    scattered = block[::2]  # not a block: never kept
    assert terms(scattered) is not terms(scattered)
    fresh = SearchIndex(store).source(source_id).window(block, BOW.model_name, BOW.dimension)
    for name in ("ids", "offsets", "owner"):
        assert getattr(fresh.terms, name).tolist() == getattr(first, name).tolist()
    assert source.memory()["windows"] > 0
    for start in range(1, MAX_BLOCKS + 1):  # newer blocks push the first one out
        terms(block[start:])
    assert terms(block) is not first


def test_the_window_selection_is_the_stores_scan_window() -> None:
    rng = random.Random(11)
    store = SQLiteStore(":memory:")
    source_id = random_source(store, rng, 300)
    index = SearchIndex(store).source(source_id)
    for _ in range(30):
        since = T0 + timedelta(minutes=rng.randrange(150), seconds=rng.choice([0, 0.5]))
        until = since + timedelta(minutes=rng.randrange(150), seconds=rng.choice([0, 0.5]))
        topic = rng.choice([None, 1, 7, 99])
        senders: Sequence[str] | None = rng.choice([None, [], ["user2"], ["user1", "user4"]])
        limit = rng.choice([1, 10, 300])
        window = MessageFilter(since=since, until=until, topic_id=topic, sender_peer_ids=senders)
        rows = store.scan_window(source_id, limit, window)
        positions = index.select(limit, window)
        assert index.ids[positions].tolist() == [r[0] for r in rows]


def test_writes_of_this_process_are_seen_by_the_next_search() -> None:
    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="chatroom")
    store.upsert_messages([Message(source.id, 1, T0, "red apple")])
    index = SearchIndex(store)
    searcher = Searcher(store, BOW, index=index)
    assert [h.text for h in searcher.search(SearchRequest(source_ref=source, query="train"))] == [
        "red apple"
    ]
    store.upsert_messages([Message(source.id, 2, T0 + timedelta(minutes=1), "train ticket")])
    assert (
        searcher.search(SearchRequest(source_ref=source, query="train"))[0].text == "train ticket"
    )
    # An edit replaces the text (and its vector) in the index.
    edited = Message(source.id, 1, T0, "green train", edited_at=T0 + timedelta(hours=1))
    store.upsert_messages([edited])
    assert {h.text for h in searcher.search(SearchRequest(source_ref=source, query="train"))} == {
        "green train",
        "train ticket",
    }
    assert index.loads == 3
    searcher.search(SearchRequest(source_ref=source, query="train"))
    assert index.loads == 3  # unchanged store: no reload


def test_a_reload_keeps_the_vectors_of_unchanged_messages() -> None:
    class Counting(BagOfWordsEmbedder):
        passages = 0

        def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
            Counting.passages += len(texts)
            return super().embed_passages(texts)

    store = SQLiteStore(":memory:")
    source = store.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="chatroom")
    store.upsert_messages(Message(source.id, i, T0 + timedelta(minutes=i), "ok") for i in range(50))
    searcher = Searcher(store, Counting(), index=SearchIndex(store))
    searcher.search(SearchRequest(source_ref=source, query="ok", scan_messages_limit=50))
    store.upsert_messages([Message(source.id, 99, T0 + timedelta(hours=2), "river")])
    searcher.search(SearchRequest(source_ref=source, query="ok", scan_messages_limit=51))
    assert Counting.passages == 51


def test_another_processs_writes_are_seen(tmp_path: Path) -> None:
    """Two store objects on one file stand for two workers (or replicas on PostgreSQL):
    each has its own index; a write through one is found by the other's next search."""
    path = tmp_path / "store.sqlite3"
    reader, writer = SQLiteStore(path), SQLiteStore(path)
    try:
        source = writer.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="chatroom")
        writer.upsert_messages([Message(source.id, 1, T0, "red apple")])
        searcher = Searcher(reader, BOW, index=SearchIndex(reader))
        assert len(searcher.search(SearchRequest(source_ref="@chatroom", query="train"))) == 1
        writer.upsert_messages([Message(source.id, 2, T0 + timedelta(minutes=1), "train ticket")])
        assert (
            searcher.search(SearchRequest(source_ref="@chatroom", query="train"))[0].text
            == "train ticket"
        )
        writer.upsert_topics(source.id, [(5, "Trips")])  # topics move messages to General
        in_general = searcher.search(
            SearchRequest(source_ref="@chatroom", query="train", topic_id=1)
        )
        assert in_general[0].text == "train ticket"
    finally:
        reader.close()
        writer.close()


def test_an_import_is_seen_by_the_next_search(tmp_path: Path) -> None:
    from benchmarks.bench_import import synthetic_export

    store = SQLiteStore(tmp_path / "store.sqlite3")
    try:
        export = synthetic_export(tmp_path / "result.json", 300)
        searcher = Searcher(store, BOW, index=SearchIndex(store))
        report = import_export(store, export)
        source = report.sources[0].source
        first = searcher.search(
            SearchRequest(source_ref=source, query="release build", scan_messages_limit=50)
        )
        assert first
        synthetic_export(tmp_path / "more.json", 600)
        import_export(store, tmp_path / "more.json")
        newest = store.scan_window(source.id, 1)[0][0]
        hits = searcher.search(
            SearchRequest(source_ref=source, query="release build", scan_messages_limit=1)
        )
        assert [int(h.messenger_message_id) for h in hits] == [newest]
    finally:
        store.close()


def test_the_index_keeps_at_most_its_bound_of_messages() -> None:
    store = SQLiteStore(":memory:")
    rng = random.Random(3)
    ids = [random_source(store, rng, 600, handle=f"s{k}") for k in range(3)]
    index = SearchIndex(store, max_messages=1_000)
    for source_id in ids:
        index.source(source_id)
        assert sum(s.size for s in index._sources.values()) <= 1_000
    assert len(index) == 1
    memory = index.memory()
    assert set(memory) == {"arrays", "terms", "texts", "vectors", "windows"}
    assert memory["vectors"] == 0  # nothing searched: no vector loaded


@pytest.mark.both_stores
def test_replicas_see_each_others_writes(store: SQLiteStore | PostgresStore, db: Path) -> None:
    """A second store object on the same database stands for another worker or replica
    (on PostgreSQL, another service replica): its writes reach this index's next search."""
    url = getattr(store.dialect, "url", None)  # PostgreSQL's dialect knows its URL
    other = SQLiteStore(db) if url is None else PostgresStore(url)
    try:
        source = other.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="chatroom")
        other.upsert_messages([Message(source.id, 1, T0, "red apple")])
        searcher = Searcher(store, BOW, index=SearchIndex(store))
        assert [
            h.text for h in searcher.search(SearchRequest(source_ref="@chatroom", query="train"))
        ] == ["red apple"]
        with other.staging() as sink:  # an import, staged and published
            staged = sink.upsert_source(title="Chat", kind=SourceKind.CHAT, handle="chatroom")
            sink.upsert_messages([Message(staged.id, 2, T0 + timedelta(hours=1), "train ticket")])
        assert (
            searcher.search(SearchRequest(source_ref="@chatroom", query="train"))[0].text
            == "train ticket"
        )
        assert store.source_generation(source.id) == other.source_generation(source.id) > 0
    finally:
        other.close()
