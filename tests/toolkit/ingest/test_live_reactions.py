"""Reactions, views and forwards of real Telethon messages built offline: converted, synced,
updated by a later sync, kept when an export brings the message again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from export_builders import chat, emoji_reaction, write
from telethon.tl import types as tl
from telethon_fakes import ALICE, BASE_TIME, NEWS, TALK, FakeTelegram, text_message

from toolkit.ingest import import_export
from toolkit.ingest.live.client import TelethonMessengerClient
from toolkit.ingest.live.convert import convert_message, reaction_key
from toolkit.ingest.live.sync import sync_source
from toolkit.models import Message
from toolkit.refs import parse_ref
from toolkit.store.base import MessageStore

DOCUMENT = 5368324170671202286


def counted(*pairs: tuple[Any, int]) -> tl.MessageReactions:
    """``MessageReactions`` as the server sends them: one ``ReactionCount`` per reaction."""
    return tl.MessageReactions(results=[tl.ReactionCount(reaction=r, count=n) for r, n in pairs])


def post(msg_id: int, reactions: tl.MessageReactions | None, **extra: Any) -> tl.Message:
    return text_message(NEWS, msg_id, f"post {msg_id}", sender=None, reactions=reactions, **extra)


def test_reaction_kinds_become_the_export_keys() -> None:
    message = post(
        1,
        counted(
            (tl.ReactionEmoji(emoticon="👍"), 3),
            (tl.ReactionCustomEmoji(document_id=DOCUMENT), 1),
            (tl.ReactionPaid(), 25),
            (tl.ReactionEmoji(emoticon="🔥"), 3),
        ),
        views=1200,
        forwards=14,
    )
    converted = convert_message(message, source_id=7)
    assert converted is not None
    assert converted.reactions == (
        ("paid", 25),
        ("👍", 3),  # ties by key: the same order whatever order the server sent
        ("🔥", 3),
        (f"custom:{DOCUMENT}", 1),
    )
    assert converted.reaction_count == 32
    assert (converted.views, converted.forwards) == (1200, 14)


def test_a_message_without_reactions_or_counters() -> None:
    converted = convert_message(text_message(TALK, 2, "hello", sender=ALICE), source_id=7)
    assert converted is not None
    assert (converted.reactions, converted.views, converted.forwards) == ((), None, None)
    assert reaction_key(tl.ReactionEmpty()) is None
    assert reaction_key(None) is None


def test_a_service_message_has_none() -> None:
    service = tl.MessageService(
        id=3,
        peer_id=tl.PeerChannel(NEWS.id),
        date=BASE_TIME,
        action=tl.MessageActionChatEditTitle(title="Daily"),
        reactions=counted((tl.ReactionEmoji(emoticon="👍"), 1)),
    )
    converted = convert_message(service, source_id=7)
    assert converted is not None
    assert converted.reactions == ()


def sync(store: MessageStore, fake: FakeTelegram, *, full: bool = False) -> None:
    asyncio.run(
        sync_source(
            store,
            TelethonMessengerClient(fake),
            parse_ref("@DailyNews"),
            batch_size=10,
            flood_sleep_threshold=60.0,
            full=full,
        )
    )


def stored(store: MessageStore) -> dict[int, Message]:
    (stats,) = store.list_sources()
    return {m.messenger_message_id: m for m in store.iter_messages(stats.source.id)}


@pytest.mark.both_stores
def test_a_full_resync_updates_counts_and_an_export_keeps_views(
    store: MessageStore, tmp_path: Path
) -> None:
    thumbs = tl.ReactionEmoji(emoticon="👍")
    fake = FakeTelegram(
        entities=[NEWS],
        histories={NEWS.id: [post(1, counted((thumbs, 2)), views=100, forwards=1)]},
    )
    sync(store, fake)
    assert stored(store)[1].reactions == (("👍", 2),)
    # Later: more reactions and views; a full re-sync reads the message again.
    fake.histories[NEWS.id] = [post(1, counted((thumbs, 5)), views=180, forwards=3)]
    sync(store, fake, full=True)
    message = stored(store)[1]
    assert (message.reactions, message.views, message.forwards) == ((("👍", 5),), 180, 3)
    # An export of the channel brings the post again with its reactions and no views:
    # the counts are the export's, the views and forwards the sync's.
    export = chat(
        [
            {
                "id": 1,
                "type": "message",
                "date": "2024-03-01T12:01:00",
                "date_unixtime": str(int(message.posted_at.timestamp())),
                "from": "Daily News",
                "from_id": f"channel{NEWS.id}",
                "text": "post 1",
                "reactions": [emoji_reaction("👍", 6)],
            }
        ],
        name="Daily News",
        type_="public_channel",
        id_=NEWS.id,
    )
    report = import_export(store, write(tmp_path / "result.json", export))
    assert report.total.updated == 1
    message = stored(store)[1]
    assert (message.reactions, message.views, message.forwards) == ((("👍", 6),), 180, 3)
