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

    async def iter_messages(
        self, entity: Any, *, min_id: int = 0, reverse: bool = False, limit: int | None = None
    ) -> AsyncIterator[Any]:
        call = len(self.calls)
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
