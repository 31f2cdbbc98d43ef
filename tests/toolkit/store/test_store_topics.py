"""Both stores: a message's neighbours in a forum are of its own topic; elsewhere (and with
``same_topic=False``) of the whole source. Checked against a naive reference."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from store_backends import Store

from toolkit.models import Message, Source, SourceKind, Walk
from toolkit.store import SQLiteStore

pytestmark = pytest.mark.both_stores

T0 = datetime(2024, 4, 1, 9, 0, tzinfo=UTC)
Around = tuple[list[int], list[int]]


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def ids(pair: tuple[list[Message], list[Message]]) -> Around:
    return [m.messenger_message_id for m in pair[0]], [m.messenger_message_id for m in pair[1]]


@pytest.fixture
def forum(store: Store) -> Source:
    """Three topics posted into in turns: General (stored without a topic, then moved into
    topic 1 when the topics are recorded), Deploys (3) and Lunch (6)."""
    source = store.upsert_source(
        title="Team",
        kind=SourceKind.CHAT,
        internal_id=1_777_000_002,
        chat_type="private_supergroup",
    )
    topic_of = {2: None, 3: 3, 4: 3, 5: None, 6: 6, 7: 6, 8: 3, 9: None, 10: 6, 11: 3, 12: 3}
    store.upsert_messages(
        Message(
            source.id,
            mid,
            at(mid),
            f"message {mid}",
            topic_id=topic,
            is_service=mid in (3, 6),  # topic_created: the topic's id is its own id
        )
        for mid, topic in topic_of.items()
    )
    store.upsert_topics(source.id, [(3, "Deploys"), (6, "Lunch")])
    return source


def test_a_forum_messages_neighbours_are_of_its_own_topic(store: Store, forum: Source) -> None:
    around = store.neighbours_of(forum.id, [8, 7, 5, 999], Walk(before=2, after=2))
    assert ids(around[8]) == ([4], [11, 12])  # Deploys only; its service message skipped
    assert ids(around[7]) == ([], [10])  # Lunch
    assert ids(around[5]) == ([2], [9])  # General: the messages stored without a topic
    assert around[999] == ([], [])
    assert ids(store.neighbours_of(forum.id, [11], Walk(1, 5))[11]) == ([8], [12])


def test_same_topic_false_reads_the_whole_forum_in_posting_order(
    store: Store, forum: Source
) -> None:
    whole = Walk(same_topic=False)
    assert ids(store.neighbours_of(forum.id, [8], whole)[8]) == ([5, 7], [9, 10])
    wide = store.neighbours_of(forum.id, [2, 12], Walk(1, 1, same_topic=False))
    assert (ids(wide[2]), ids(wide[12])) == (([], [4]), ([11], []))


def test_a_non_forum_source_keeps_the_whole_source_as_context(store: Store) -> None:
    chat = store.upsert_source(title="Club", kind=SourceKind.CHAT, internal_id=100)
    store.upsert_messages(
        Message(chat.id, i, at(i), f"m{i}", is_service=i == 4) for i in range(1, 8)
    )
    assert ids(store.neighbours_of(chat.id, [5])[5]) == ([2, 3], [6, 7])
    every = list(range(1, 8))
    assert store.neighbours_of(chat.id, every) == store.neighbours_of(
        chat.id, every, Walk(same_topic=False)
    )


def _reference(messages: list[Message], anchor: int, before: int, after: int, same: bool) -> Around:
    """Neighbours the slow way: sort everything, filter, slice around the anchor."""
    order = sorted(messages, key=lambda m: (m.posted_at, m.messenger_message_id))
    found = [m for m in order if m.messenger_message_id == anchor]
    if not found:
        return [], []
    a = found[0]
    kept = [m for m in order if not m.is_service and (not same or m.topic_id == a.topic_id)]
    key = (a.posted_at, a.messenger_message_id)
    older = [m for m in kept if (m.posted_at, m.messenger_message_id) < key]
    newer = [m for m in kept if (m.posted_at, m.messenger_message_id) > key]
    return (
        [m.messenger_message_id for m in older][len(older) - min(before, len(older)) :],
        [m.messenger_message_id for m in newer[:after]],
    )


@pytest.mark.parametrize("forum_source", [True, False])
def test_neighbours_of_match_a_naive_reference(store: Store, forum_source: bool) -> None:
    """Random topics, shared timestamps, service anchors, unknown ids, several widths."""
    rng = random.Random(7)
    source = store.upsert_source(title="R", kind=SourceKind.CHAT, internal_id=77)
    messages = [
        Message(
            source.id,
            i,
            at(i // 3),  # three messages share each minute
            f"m{i}",
            is_service=rng.random() < 0.1,
            topic_id=rng.choice([1, 1, 5, 9]) if forum_source else None,
        )
        for i in range(1, 90)
    ]
    store.upsert_messages(messages)
    asked = [1, 2, 13, 14, 30, 45, 88, 89, 999, *rng.sample(range(1, 90), 20)]
    for before, after in ((2, 2), (0, 3), (5, 0)):
        for same in (True, False):
            many = store.neighbours_of(source.id, asked, Walk(before, after, same))
            assert set(many) == set(asked)
            for mid in asked:
                expected = _reference(messages, mid, before, after, same)
                assert ids(many[mid]) == expected, (mid, before, after, same)


def test_the_topic_walks_are_served_by_the_topic_index(store: Store, forum: Source) -> None:
    """Each walk searches ``messages_by_topic`` (source, topic, time) from the anchor in
    index order: no sort, no scan of the topic."""
    sql, params = store.dialect.neighbours(forum.id, [8], Walk(before=2, after=2, same_topic=True))
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.database) as db:
            plan = " | ".join(r[3] for r in db.execute(f"EXPLAIN QUERY PLAN {sql}", params))
        walk = "USING INDEX messages_by_topic (source_id=? AND topic_id=? AND (posted_at,"
        assert plan.count(walk) == 2, plan
        assert "TEMP B-TREE" not in plan, plan
        return
    with psycopg.connect(store.dialect.url) as pg:  # type: ignore[attr-defined]
        pg.execute("SET enable_seqscan = off")  # a table this small would be read whole
        plan = " | ".join(r[0] for r in pg.execute(f"EXPLAIN {sql}", params))  # type: ignore[arg-type]
    assert plan.count("Index Scan Backward using messages_by_topic") == 1, plan
    assert plan.count("Index Scan using messages_by_topic") == 1, plan
    assert "Sort" not in plan, plan


def test_a_topic_known_only_from_its_messages_is_listed_by_number(store: Store) -> None:
    """A live sync that started after a topic was created has its messages, not its title."""
    source = store.upsert_source(title="F", kind=SourceKind.CHAT, internal_id=5)
    store.upsert_messages(
        Message(source.id, i, at(i), f"m{i}", topic_id=topic)
        for i, topic in ((1, 9), (2, 9), (3, 4))
    )
    store.upsert_topics(source.id, [(4, "Known")])
    listed = [(t.topic_id, t.title, t.message_count) for t in store.list_topics(source.id)]
    assert listed == [(1, "General", 0), (4, "Known", 1), (9, "Topic 9", 2)]
