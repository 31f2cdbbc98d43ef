"""Live messages of a forum: topics from Telethon's reply header, titles from actions."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from telethon.tl import types as tl
from telethon_fakes import ALICE, BASE_TIME, BOB, ENTITIES_FORUM, FakeTelegram, text_message

from toolkit.ingest.live.client import ResolvedSource, TelethonMessengerClient
from toolkit.ingest.live.convert import entity_chat_type, topic_of
from toolkit.models import Message, SourceKind


def _action(channel: tl.Channel, msg_id: int, action: Any, **extra: Any) -> tl.MessageService:
    return tl.MessageService(
        id=msg_id,
        peer_id=tl.PeerChannel(channel.id),
        date=BASE_TIME + timedelta(minutes=msg_id),
        action=action,
        from_id=tl.PeerUser(ALICE.id),
        **extra,
    )


def _in_topic(top: int, reply_to: int | None = None) -> tl.MessageReplyHeader:
    return tl.MessageReplyHeader(
        forum_topic=True,
        reply_to_msg_id=reply_to or top,
        reply_to_top_id=top if reply_to else None,
    )


def test_forum_messages_carry_their_topic_and_titles_reach_the_source() -> None:
    forum = ENTITIES_FORUM
    raw = [
        text_message(forum, 2, "hello everyone"),  # General: no reply header
        _action(forum, 3, tl.MessageActionTopicCreate(title="Releases", icon_color=0)),
        text_message(forum, 4, "release 1.2", reply_to=_in_topic(3)),
        text_message(forum, 5, "which build?", sender=BOB, reply_to=_in_topic(3, 4)),
        _action(forum, 6, tl.MessageActionTopicEdit(title="Shipping"), reply_to=_in_topic(3)),
    ]
    fake = FakeTelegram(entities=[forum, ALICE, BOB])
    fake.histories[forum.id] = raw
    source = ResolvedSource(
        forum.id, forum.title, SourceKind.CHAT, None, forum, "private_supergroup", True
    )

    async def collect() -> list[Message]:
        client = TelethonMessengerClient(fake)
        return [m async for m in client.iter_messages(source, source_id=1)]

    got = {m.messenger_message_id: m for m in asyncio.run(collect())}
    assert {i: m.topic_id for i, m in got.items()} == {2: 1, 3: 3, 4: 3, 5: 3, 6: 3}
    assert got[4].reply_to is None  # posting in a topic is no reply
    assert got[5].reply_to == 4
    assert source.topics == {3: "Shipping"}
    assert topic_of(text_message(forum, 9, "x"), forum=False) is None
    assert entity_chat_type(forum) == "private_supergroup"
    assert entity_chat_type(ALICE) == "personal_chat"
