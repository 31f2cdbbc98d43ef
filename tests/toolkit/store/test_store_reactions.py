"""Reactions, views and forwards: stored and read back by every reader, on both stores;
replaced by an upsert with other counts; kept across ``copy-store``; an older store gains
the columns; a summary's cache key sees them."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_backends import Store, outside_query

from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.copy import copy_store
from toolkit.store.rows import reactions_json, read_reactions
from toolkit.summarize.cache import content_hash

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
THUMBS = (("👍", 3), ("custom:42", 1))


def seeded(store: Store) -> int:
    source = store.upsert_source(title="News", kind=SourceKind.CHANNEL, internal_id=77)
    store.upsert_messages(
        [
            Message(source.id, 1, T0, "first", reactions=THUMBS, views=100, forwards=2),
            Message(source.id, 2, T0 + timedelta(minutes=1), "second"),
            Message(source.id, 3, T0 + timedelta(minutes=2), "third", reactions=(("🔥", 1),)),
        ]
    )
    return source.id


@pytest.mark.both_stores
def test_every_reader_gives_them_back(store: Store) -> None:
    sid = seeded(store)
    first, second, _ = store.get_messages(sid, [1, 2, 3])
    assert (first.reactions, first.views, first.forwards) == (THUMBS, 100, 2)
    assert (second.reactions, second.views, second.forwards) == ((), None, None)
    assert [m.reactions for m in store.iter_messages(sid)] == [THUMBS, (), (("🔥", 1),)]
    assert store.recent_messages(sid, 1)[0].reactions == (("🔥", 1),)
    first_second = MessageFilter(since=T0, before=T0 + timedelta(seconds=1))
    assert store.messages_in_period(sid, first_second)[0].views == 100
    older, newer = store.neighbours_of(sid, [2])[2]
    assert (older[0].reactions, newer[0].reactions) == (THUMBS, (("🔥", 1),))
    stored = outside_query(store, "SELECT reactions FROM messages ORDER BY message_id")
    assert stored == [('{"👍":3,"custom:42":1}',), (None,), ('{"🔥":1}',)]


@pytest.mark.both_stores
def test_new_counts_update_and_unknown_views_are_kept(store: Store) -> None:
    sid = seeded(store)
    same = store.upsert_messages(
        [Message(sid, 1, T0, "first", reactions=THUMBS, views=100, forwards=2)]
    )
    assert (same.updated, same.unchanged) == (0, 1)
    # Without views or forwards (as an export brings it): the counts change, the rest stays.
    result = store.upsert_messages([Message(sid, 1, T0, "first", reactions=(("👍", 9),))])
    assert (result.updated, result.unchanged) == (1, 0)
    (message,) = store.get_messages(sid, [1])
    assert (message.reactions, message.views, message.forwards) == ((("👍", 9),), 100, 2)
    # A reaction count changes no text: the message's vectors stay.
    assert store.put_vectors(sid, "m", [(3, [1.0, 0.0])]) == 1
    store.upsert_messages([Message(sid, 3, T0 + timedelta(minutes=2), "third")])
    assert list(store.get_vectors(sid, [3], "m")) == [3]
    assert store.get_messages(sid, [3])[0].reactions == ()


@pytest.mark.both_stores
def test_a_staged_import_applies_them_too(store: Store) -> None:
    sid = seeded(store)
    with store.staging() as sink:
        source = sink.upsert_source(title="News", kind=SourceKind.CHANNEL, internal_id=77)
        result = sink.upsert_messages(
            [
                Message(source.id, 1, T0, "first", reactions=(("👍", 4),)),
                Message(source.id, 4, T0 + timedelta(minutes=3), "new", reactions=(("🎉", 2),)),
            ]
        )
    assert (result.inserted, result.updated) == (1, 1)
    one, four = store.get_messages(sid, [1, 4])
    assert (one.reactions, one.views) == ((("👍", 4),), 100)
    assert four.reactions == (("🎉", 2),)


def test_copy_store_carries_them(tmp_path: Path) -> None:
    src, dst = SQLiteStore(tmp_path / "a.sqlite3"), SQLiteStore(tmp_path / "b.sqlite3")
    try:
        seeded(src)
        copy_store(src, dst)
        (stats,) = dst.list_sources()
        copied = list(dst.iter_messages(stats.source.id))
        assert [(m.reactions, m.views, m.forwards) for m in copied] == [
            (THUMBS, 100, 2),
            ((), None, None),
            ((("🔥", 1),), None, None),
        ]
    finally:
        src.close()
        dst.close()


def test_an_older_store_gains_the_columns(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    SQLiteStore(db).close()
    with sqlite3.connect(db) as conn:  # the messages table as m001..m008 made it
        for column in ("reactions", "views", "forwards"):
            conn.execute(f"ALTER TABLE messages DROP COLUMN {column}")
        conn.execute("DELETE FROM _migrations WHERE name = 'm009_message_reactions'")
    store = SQLiteStore(db)
    try:
        sid = seeded(store)
        assert store.get_messages(sid, [1])[0].reactions == THUMBS
    finally:
        store.close()


def test_the_stored_form_reads_back_and_a_damaged_value_reads_as_none() -> None:
    assert read_reactions(reactions_json(THUMBS)) == THUMBS
    assert reactions_json(()) is None
    assert read_reactions(None) == read_reactions("") == ()
    assert read_reactions("[1, 2]") == read_reactions("{not json") == ()
    assert read_reactions('{"👍": "x"}') == ()


def test_a_summarys_cache_key_sees_them_only_when_there_are_some() -> None:
    plain = Message(1, 1, T0, "lunch?")
    liked = Message(1, 1, T0, "lunch?", reactions=(("👍", 2),))
    assert content_hash([plain]) != content_hash([liked])
    assert content_hash([liked]) != content_hash(
        [Message(1, 1, T0, "lunch?", reactions=(("👍", 3),))]
    )
    assert content_hash([plain]) == content_hash([Message(1, 1, T0, "lunch?")])
