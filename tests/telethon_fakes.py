"""An offline stand-in for Telethon's ``TelegramClient`` that serves real Telethon objects.

``FakeTelegram`` keeps a history of real ``telethon.tl.types.Message`` /
``MessageService`` objects per channel and answers ``get_entity`` and
``iter_messages(entity, min_id=, reverse=, limit=)`` the way Telethon does, including
``_finish_init`` with the known entities (so ``message.sender`` and ``message.forward``
are filled as in a live fetch). Scripted faults raise real Telethon errors
(``FloodWaitError``) or anything else after a chosen number of messages. It opens no
connection of any kind.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from telethon import utils
from telethon._updates import EntityCache
from telethon.errors import FloodWaitError
from telethon.tl import functions
from telethon.tl import types as tl

BASE_TIME = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)

ALICE = tl.User(id=101, first_name="Alice", last_name="Smith", username="alice_s")
BOB = tl.User(id=102, first_name="Bob", username="bobby")
CAROL = tl.User(id=103, first_name="Carol")


def _channel(channel_id: int, title: str, **flags: Any) -> tl.Channel:
    photo = tl.ChatPhotoEmpty()
    return tl.Channel(id=channel_id, title=title, photo=photo, date=BASE_TIME, **flags)


NEWS = _channel(555001, "Daily News", broadcast=True, username="DailyNews", access_hash=42)
TALK = _channel(555002, "Open Talk", megagroup=True, username="open_talk", access_hash=43)
PRIVATE = _channel(555003, "Team Room", megagroup=True)
ENTITIES_FORUM = _channel(555004, "Team Forum", megagroup=True, forum=True)


def text_message(
    channel: tl.Channel,
    msg_id: int,
    text: str,
    *,
    sender: tl.User | None = ALICE,
    minutes: int | None = None,
    **extra: Any,
) -> tl.Message:
    """A real Telethon text message in ``channel``, posted ``minutes`` after BASE_TIME."""
    when = BASE_TIME + timedelta(minutes=msg_id if minutes is None else minutes)
    return tl.Message(
        id=msg_id,
        peer_id=tl.PeerChannel(channel.id),
        date=when,
        message=text,
        from_id=tl.PeerUser(sender.id) if sender is not None else None,
        post=sender is None and channel.broadcast,
        **extra,
    )


def history(channel: tl.Channel, ids: range | list[int]) -> list[Any]:
    """Plain text messages with the given ids from alternating senders."""
    senders = [ALICE, BOB, CAROL]
    return [text_message(channel, i, f"message number {i}", sender=senders[i % 3]) for i in ids]


@dataclass
class Fault:
    """On call number ``call`` of ``iter_messages``, raise ``error`` after ``after`` messages."""

    call: int
    after: int
    error: BaseException


def flood(seconds: int) -> FloodWaitError:
    """A real Telethon FloodWaitError, as its RPC layer would raise it."""
    return FloodWaitError(request=None, capture=seconds)


@dataclass
class FakeTelegram:
    """What ``TelethonMessengerClient`` uses of ``TelegramClient``, served offline."""

    entities: list[Any]
    histories: dict[int, list[Any]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    authorised: bool = True
    calls: list[dict[str, Any]] = field(default_factory=list)
    yielded: list[int] = field(default_factory=list)
    connected: bool = False
    _self_id: int = 999
    parse_mode: Any = None
    comments: dict[int, list[Any]] = field(default_factory=dict)
    """A channel post's comments (by post id), as its discussion group holds them."""
    copies: dict[int, Any] = field(default_factory=dict)
    """The discussion group's copy of a channel post (by post id)."""
    comment_faults: list[Fault] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._mb_entity_cache = EntityCache()
        self._by_peer = {utils.get_peer_id(e): e for e in self.entities}

    async def connect(self) -> None:
        self.connected = True

    async def is_user_authorized(self) -> bool:
        return self.authorised

    async def disconnect(self) -> None:
        self.connected = False

    async def get_entity(self, target: Any) -> Any:
        if isinstance(target, str):
            for entity in self.entities:
                if (getattr(entity, "username", None) or "").lower() == target.lower():
                    return entity
            # Telethon turns USERNAME_NOT_OCCUPIED into exactly this ValueError.
            raise ValueError(f'No user has "{target}" as username')
        try:
            return self._by_peer[utils.get_peer_id(target)]
        except KeyError:
            raise ValueError(f"Could not find the input entity for {target!r}") from None

    async def __call__(self, request: Any) -> Any:
        """``client(GetDiscussionMessageRequest(...))``, answered as the server does."""
        if not isinstance(request, functions.messages.GetDiscussionMessageRequest):
            raise NotImplementedError(type(request).__name__)
        copy = self.copies.get(request.msg_id)
        return tl.messages.DiscussionMessage(
            messages=[copy] if copy is not None else [],
            unread_count=0,
            chats=[e for e in self.entities if isinstance(e, tl.Channel)],
            users=[e for e in self.entities if isinstance(e, tl.User)],
        )

    async def iter_messages(
        self,
        entity: Any,
        *,
        min_id: int = 0,
        reverse: bool = False,
        limit: int | None = None,
        reply_to: int | None = None,
    ) -> AsyncIterator[Any]:
        if reply_to is not None:
            call = sum(1 for c in self.calls if c.get("reply_to") is not None)
            self.calls.append({"entity": entity.id, "reply_to": reply_to, "reverse": reverse})
            fault = next((f for f in self.comment_faults if f.call == call), None)
            for n, message in enumerate(
                sorted(self.comments.get(reply_to, []), key=lambda m: m.id)
            ):
                if fault is not None and n == fault.after:
                    raise fault.error
                message._finish_init(self, self._by_peer, None)
                yield message
            return
        call = len([c for c in self.calls if c.get("reply_to") is None])
        self.calls.append(
            {"entity": entity.id, "min_id": min_id, "reverse": reverse, "limit": limit}
        )
        items = [m for m in self.histories.get(entity.id, []) if m.id > min_id]
        items.sort(key=lambda m: m.id, reverse=not reverse)
        if limit is not None:
            items = items[:limit]
        fault = next((f for f in self.faults if f.call == call), None)
        for n, message in enumerate(items):
            if fault is not None and n == fault.after:
                raise fault.error
            # What Telethon does with every message of a fetched page.
            message._finish_init(self, self._by_peer, None)
            self.yielded.append(message.id)
            yield message
        if fault is not None and fault.after >= len(items):
            raise fault.error


TALK_SIZE = 23  # messages in TALK's history: not a multiple of any batch size the tests use


def talk_telegram() -> FakeTelegram:
    """An account that sees every test entity, with ``TALK_SIZE`` messages in ``TALK``."""
    return FakeTelegram(
        entities=[ALICE, BOB, CAROL, NEWS, TALK, PRIVATE],
        histories={TALK.id: history(TALK, range(1, TALK_SIZE + 1))},
    )


DISCUSSION = _channel(555005, "Daily News Chat", megagroup=True, access_hash=44)


def commented_news() -> FakeTelegram:
    """``NEWS`` with four posts, two of them commented in its discussion group.

    Post 1 has a copy (101) in the group and three comments (110, 111, and 112 replying
    to 110); post 3 has a copy (103) and one comment (120); posts 2 and 4 have none.
    """

    def replies(count: int) -> tl.MessageReplies:
        return tl.MessageReplies(
            replies=count, replies_pts=1, comments=True, channel_id=DISCUSSION.id
        )

    posts = [
        text_message(NEWS, 1, "Road works on Main Street", sender=None, replies=replies(3)),
        text_message(NEWS, 2, "Weather: sunny", sender=None),
        text_message(NEWS, 3, "Fair on Sunday", sender=None, replies=replies(1)),
        text_message(NEWS, 4, "No comments here", sender=None, replies=replies(0)),
    ]

    def copy(post: tl.Message, msg_id: int) -> tl.Message:
        return tl.Message(
            id=msg_id,
            peer_id=tl.PeerChannel(DISCUSSION.id),
            date=post.date,
            message=post.message,
            fwd_from=tl.MessageFwdHeader(
                date=post.date, from_id=tl.PeerChannel(NEWS.id), channel_post=post.id
            ),
        )

    def comment(msg_id: int, text: str, sender: tl.User, to: int, top: int | None = None) -> Any:
        reply = tl.MessageReplyHeader(reply_to_msg_id=to, reply_to_top_id=top)
        return text_message(DISCUSSION, msg_id, text, sender=sender, reply_to=reply)

    return FakeTelegram(
        entities=[ALICE, BOB, CAROL, NEWS, DISCUSSION],
        histories={NEWS.id: posts},
        copies={1: copy(posts[0], 101), 3: copy(posts[2], 103)},
        comments={
            1: [
                comment(110, "Which part of the street?", ALICE, 101),
                comment(111, "Until Friday, I heard", BOB, 101),
                comment(112, "The north end", CAROL, 110, 101),
            ],
            3: [comment(120, "Будет ли музыка?", BOB, 103)],
        },
    )
