"""Both stores (SQLite and PostgreSQL): upserts, edits, time queries, neighbours, watermark,
transactions, keys. The ``store`` fixture (tests/conftest.py) runs each test on both."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from store_backends import Store, outside_query, snapshot

from toolkit.errors import ApiKeyNotFound, SourceNotFound, StoreError
from toolkit.models import (
    CacheEntry,
    Message,
    MessageFilter,
    NewApiKey,
    Source,
    SourceKind,
    SourceRef,
    Walk,
)
from toolkit.store import SQLiteStore
from toolkit.store.migrations import migrate, migration_names

pytestmark = pytest.mark.both_stores

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


@pytest.fixture
def source(store: Store) -> Source:
    return store.upsert_source(title="Club", kind=SourceKind.CHAT, internal_id=100)


def m(source: Source, mid: int, minutes: float, text: str = "", **kw: object) -> Message:
    return Message(source.id, mid, at(minutes), text or f"message {mid}", **kw)  # type: ignore[arg-type]


def dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def ids(messages: list[Message]) -> list[int]:
    return [x.messenger_message_id for x in messages]


# Sources --------------------------------------------------------------------------------


def test_sources_are_found_by_internal_id_or_handle(store: Store, source: Source) -> None:
    again = store.upsert_source(title="Club renamed", kind=SourceKind.CHAT, internal_id=100)
    assert again.id == source.id
    assert again.title == "Club renamed"
    named = store.upsert_source(title="Club", kind=SourceKind.CHAT, internal_id=100, handle="ClubH")
    assert (named.id, named.handle) == (source.id, "clubh")
    assert store.get_source(SourceRef(raw="@CLUBH", handle="CLUBH")).id == source.id
    assert store.get_source(SourceRef(raw="t.me/c/100", internal_id=100)).id == source.id
    with pytest.raises(SourceNotFound):
        store.get_source(SourceRef(raw="@nobody", handle="nobody"))


def test_a_handle_held_by_another_source_is_a_store_error(store: Store) -> None:
    store.upsert_source(title="A", kind=SourceKind.CHAT, internal_id=1, handle="taken")
    store.upsert_source(title="B", kind=SourceKind.CHAT, internal_id=2)
    with pytest.raises(StoreError, match="taken"):
        store.upsert_source(title="B", kind=SourceKind.CHAT, internal_id=2, handle="taken")
    with pytest.raises(StoreError, match="taken"):
        store.upsert_source(title="C", kind=SourceKind.CHAT, internal_id=3, handle="taken")
    assert store.get_source_by_id(2).handle is None


# Upserts and edits ----------------------------------------------------------------------


def test_upsert_is_idempotent(store: Store, source: Source) -> None:
    batch = [m(source, i, i, reply_to=i - 1 if i > 1 else None) for i in range(1, 6)]
    first = store.upsert_messages(batch)
    before = snapshot(store)
    second = store.upsert_messages(batch)
    assert (first.inserted, first.updated, first.unchanged) == (5, 0, 0)
    assert (second.inserted, second.updated, second.unchanged) == (0, 0, 5)
    assert snapshot(store) == before


def test_an_edit_replaces_the_text_only_when_newer(store: Store, source: Source) -> None:
    store.upsert_messages([m(source, 1, 0, "first")])
    newer = store.upsert_messages([m(source, 1, 0, "second", edited_at=at(5))])
    older = store.upsert_messages([m(source, 1, 0, "stale", edited_at=at(2))])
    unedited = store.upsert_messages([m(source, 1, 0, "original")])
    assert (newer.updated, older.unchanged, unedited.unchanged) == (1, 1, 1)
    (stored,) = store.get_messages(source.id, [1])
    assert (stored.text, stored.edited_at) == ("second", at(5))
    latest = store.upsert_messages([m(source, 1, 0, "third", edited_at=at(9))])
    assert latest.updated == 1
    assert store.get_messages(source.id, [1])[0].text == "third"


def test_a_text_edit_drops_the_message_vectors(store: Store, source: Source) -> None:
    store.upsert_messages([m(source, 1, 0, "a"), m(source, 2, 1, "b")])
    vec = np.ones(4, dtype=np.float32)
    assert store.put_vectors(source.id, "model", [(1, vec), (2, vec * 2)]) == 2
    store.upsert_messages([m(source, 1, 0, "a edited", edited_at=at(3))])
    got = store.get_vectors(source.id, [1, 2], "model")
    assert list(got) == [2]
    np.testing.assert_array_equal(got[2], vec * 2)
    assert ids(store.messages_without_vectors(source.id, "model")) == [1]
    assert store.vector_models(source.id) == ["model"]


# Time queries ---------------------------------------------------------------------------


@pytest.fixture
def timeline(store: Store, source: Source) -> Source:
    """Ten messages a minute apart (ids out of time order at the tie), one service, one media."""
    batch = [m(source, i, i) for i in range(1, 11) if i not in (4, 5)]
    batch += [m(source, 5, 4), m(source, 4, 4)]  # same minute: id order breaks the tie
    batch += [m(source, 11, 10.5, "X joined", is_service=True)]
    batch += [Message(source.id, 12, at(10.75), "", media="photo")]
    store.upsert_messages(batch)
    return source


def _period(store: Store, source: Source, **where: Any) -> list[int]:
    """Ids of ``messages_in_period`` with ``MessageFilter(**where)``."""
    return ids(store.messages_in_period(source.id, MessageFilter(**where)))


def _newest(store: Store, source: Source, limit: int, **where: Any) -> list[int]:
    """Ids of ``recent_messages`` with ``MessageFilter(**where)``."""
    return ids(store.recent_messages(source.id, limit, MessageFilter(**where)))


def test_period_is_half_open_and_ordered(store: Store, timeline: Source) -> None:
    assert _period(store, timeline, since=at(3), before=at(6)) == [3, 4, 5]
    assert _period(store, timeline, since=at(9)) == [9, 10, 12]
    assert _period(store, timeline, since=at(9), include_service=True) == [9, 10, 11, 12]
    assert _period(store, timeline, before=at(3)) == [1, 2]
    assert ids(store.messages_in_period(timeline.id, limit=3)) == [1, 2, 3]
    # ``until`` is inclusive, ``before`` is not; both together take the tighter one.
    assert _period(store, timeline, until=at(3)) == [1, 2, 3]
    assert _period(store, timeline, until=at(3), before=at(3)) == [1, 2]


def test_period_bounds_with_fractions_of_a_second(store: Store, timeline: Source) -> None:
    half = timedelta(milliseconds=500)
    # A message at 12:03:00 is before 12:03:00.5 and not at or after it.
    assert _period(store, timeline, since=at(1), before=at(3) + half) == [1, 2, 3]
    assert _period(store, timeline, since=at(3) + half, before=at(6)) == [4, 5]
    assert _newest(store, timeline, 5, since=at(3) + half, until=at(6) - half) == [4, 5]


def test_recent_messages_are_the_newest_oldest_first(store: Store, timeline: Source) -> None:
    assert ids(store.recent_messages(timeline.id, 3)) == [9, 10, 12]
    assert _newest(store, timeline, 3, with_text_only=True) == [8, 9, 10]
    assert _newest(store, timeline, 3, include_service=True) == [10, 11, 12]
    # Bounds are inclusive on both sides.
    assert _newest(store, timeline, 10, since=at(3), until=at(5)) == [3, 4, 5]
    assert _newest(store, timeline, 2, until=at(5)) == [4, 5]
    assert _newest(store, timeline, 5, since=at(30)) == []


def test_neighbours_in_posting_order(store: Store, timeline: Source) -> None:
    def around(mid: int, walk: Walk = Walk()) -> tuple[list[int], list[int]]:
        older, newer = store.neighbours_of(timeline.id, [mid], walk)[mid]
        return ids(older), ids(newer)

    assert around(5) == ([3, 4], [6, 7])
    assert around(1, Walk(after=1)) == ([], [2])
    assert around(10, Walk(1, 5)) == ([9], [12])  # the service message is skipped
    assert store.neighbours_of(timeline.id, [999]) == {999: ([], [])}


def test_get_and_iter_messages_follow_posting_order(store: Store, timeline: Source) -> None:
    assert ids(store.get_messages(timeline.id, [5, 999, 4, 1, 5])) == [1, 4, 5]
    everything = ids(list(store.iter_messages(timeline.id, batch_size=3)))
    assert everything == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]


def test_counts_and_stats_leave_service_messages_out(store: Store, timeline: Source) -> None:
    assert store.count_messages(timeline.id) == 11
    assert store.count_messages(timeline.id, MessageFilter(include_service=True)) == 12
    stats = store.source_stats(timeline.id)
    assert (stats.message_count, stats.first_message_at, stats.last_message_at) == (
        11,
        at(1),
        at(10.75),
    )
    other = store.upsert_source(title="Another", kind=SourceKind.CHANNEL, handle="another")
    listed = store.list_sources()
    assert [s.source.id for s in listed] == [other.id, timeline.id]  # by title
    assert listed[0].message_count == 0
    assert listed[0].first_message_at is None


# Watermark, transactions, migrations ----------------------------------------------------


def test_watermark_never_moves_backwards(store: Store, source: Source) -> None:
    assert store.get_watermark(source.id) is None
    store.set_watermark(source.id, 50, at(1))
    store.set_watermark(source.id, 20, at(2))
    assert store.get_watermark(source.id) == 50
    store.set_watermark(source.id, 70, at(3))
    stats = store.source_stats(source.id)
    assert (stats.last_synced_message_id, stats.last_synced_at) == (70, at(3))


def test_a_failed_transaction_leaves_nothing(store: Store, source: Source) -> None:
    store.upsert_messages([m(source, 1, 1)])
    before = snapshot(store)

    def fail_halfway() -> None:
        with store.transaction():
            store.upsert_messages([m(source, 2, 2)])
            with store.transaction():  # nested: joins the outer one
                store.set_watermark(source.id, 2, at(2))
                store.upsert_source(title="New", kind=SourceKind.CHANNEL, internal_id=5)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_halfway()
    assert snapshot(store) == before
    # The store is usable afterwards, and a successful transaction commits.
    with store.transaction():
        store.upsert_messages([m(source, 3, 3)])
    assert ids(store.messages_in_period(source.id)) == [1, 3]


def test_writes_are_visible_to_another_connection_only_on_commit(
    store: Store, source: Source
) -> None:
    with store.transaction():
        store.upsert_messages([m(source, 1, 1)])
        assert outside_query(store, "SELECT COUNT(*) FROM messages") == [(0,)]
    assert outside_query(store, "SELECT COUNT(*) FROM messages") == [(1,)]


def test_migrations_are_recorded_and_applied_once(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite3"
    store = SQLiteStore(db)
    assert migrate(store.connections) == []
    store.close()
    with sqlite3.connect(db) as conn:
        recorded = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert recorded == migration_names(store.dialect)
    assert "m005_topics_senders" in recorded  # the name SQLite stores have recorded
    assert "m006_topics_senders" not in recorded
    assert recorded[-1] == "m013_alerts"
    assert journal == "wal"
    before = dump(db)
    SQLiteStore(db).close()  # reopening applies nothing
    assert dump(db) == before


def test_an_unopenable_store_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(StoreError, match="cannot open"):
        SQLiteStore(tmp_path / "dir.sqlite3")


# API keys and cache ---------------------------------------------------------------------


def test_api_keys_lifecycle(store: Store) -> None:
    record = store.add_api_key(
        NewApiKey(
            name="dev", prefix="mlk_abc", key_hash="h" * 64, scopes=["search.read", "sources.read"]
        )
    )
    assert record.scopes == frozenset({"search.read", "sources.read"})
    assert record.active
    found = store.api_key_by_prefix("mlk_abc")
    assert found is not None
    assert found == (record, "h" * 64)
    assert store.api_key_by_prefix("mlk_zzz") is None
    store.touch_api_key(record.id, at(1))
    second = store.add_api_key(NewApiKey(name="ci", prefix="mlk_def", key_hash="g" * 64, scopes=[]))
    assert [k.name for k in store.list_api_keys()] == ["dev", "ci"]
    revoked = store.revoke_api_key("mlk_abc")
    assert not revoked.active
    assert revoked.last_used_at == at(1)
    assert store.revoke_api_key(str(second.id)).revoked_at is not None
    again = store.revoke_api_key("mlk_abc")  # revoking twice keeps the first time
    assert again.revoked_at == revoked.revoked_at
    with pytest.raises(ApiKeyNotFound):
        store.revoke_api_key("mlk_nope")


def test_api_key_times_can_be_given(store: Store) -> None:
    made = store.add_api_key(
        NewApiKey(name="old", prefix="mlk_old", key_hash="h" * 64, scopes=[], created_at=at(0))
    )
    assert made.created_at == at(0)
    assert store.revoke_api_key("mlk_old", at=at(5)).revoked_at == at(5)
    assert store.revoke_api_key("mlk_old", at=at(9)).revoked_at == at(5)  # the first time stays


def test_cache_put_replaces(store: Store) -> None:
    assert store.cache_get("k") is None
    store.cache_put("k", "one")
    store.cache_put("k", "two")
    assert store.cache_get("k") == "two"


def test_cache_merge_keeps_times_and_the_newer_entry(store: Store) -> None:
    store.merge_cache([CacheEntry("b", "old b", at(0)), CacheEntry("c", "new c", at(10))])
    incoming = [CacheEntry("a", "a", at(1)), CacheEntry("b", "new b", at(2))]
    assert store.merge_cache([*incoming, CacheEntry("c", "old c", at(3))]) == 2
    expected = [*incoming, CacheEntry("c", "new c", at(10))]
    assert list(store.iter_cache(batch_size=2)) == expected
    assert store.merge_cache(expected) == 0  # the same entries again change nothing
    assert store.cache_get("b") == "new b"


def test_senders_are_counted_per_source_and_topic(store: Store, source: Source) -> None:
    store.upsert_messages(
        [
            m(source, 1, 1, "a", sender_peer_id="user1", sender_name="Ann"),
            m(source, 2, 2, "b", sender_peer_id="user1", sender_name="Ann"),
            m(source, 3, 3, "c", sender_peer_id="user2", sender_name="Bob", topic_id=5),
            m(source, 4, 4, "d", sender_name="Cid", topic_id=5),  # a name without an id
            m(source, 5, 5, "", sender_peer_id="user9", is_service=True),  # joins count not
        ]
    )
    assert store.count_senders(source.id) == 3
    assert store.count_senders(source.id, MessageFilter(topic_id=5)) == 2
