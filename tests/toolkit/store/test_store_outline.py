"""Both stores: a source's outline (id, time, characters of text) that a source summary's
sample is drawn from: messages with text only, posting order, the request's filters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from store_backends import Store

from toolkit.models import Message, MessageFilter, SourceKind

pytestmark = pytest.mark.both_stores

T0 = datetime(2019, 5, 1, 9, 0, tzinfo=UTC)


def test_the_outline_is_every_message_with_text_in_posting_order(store: Store) -> None:
    source = store.upsert_source(title="Club", kind=SourceKind.CHAT, internal_id=7)
    other = store.upsert_source(title="Other", kind=SourceKind.CHAT, internal_id=8)
    rows = [
        Message(source.id, 3, T0 + timedelta(days=2), "Привет, ёлка!", sender_peer_id="user1"),
        Message(source.id, 1, T0, "first one", sender_peer_id="user2"),
        Message(source.id, 2, T0 + timedelta(days=1), "", media="photo", sender_peer_id="user1"),
        Message(source.id, 4, T0 + timedelta(days=3), "joined", is_service=True),
        Message(source.id, 5, T0 + timedelta(days=2), "same second, later id", topic_id=9),
        Message(other.id, 6, T0, "another source"),
    ]
    store.upsert_messages(rows)
    day = 86_400
    start = int(T0.timestamp())
    assert store.message_outline(source.id) == [
        (1, start, 9),
        (3, start + 2 * day, 13),  # characters, not bytes
        (5, start + 2 * day, 21),
    ]
    assert store.message_outline(source.id, MessageFilter(topic_id=9)) == [(5, start + 2 * day, 21)]
    assert store.message_outline(source.id, MessageFilter(sender_peer_ids=["user1"])) == [
        (3, start + 2 * day, 13)
    ]
    assert store.message_outline(source.id, MessageFilter(sender_peer_ids=[])) == []
    assert store.message_outline(other.id + 100) == []
