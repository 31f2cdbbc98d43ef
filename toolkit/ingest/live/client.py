"""Live fetching from the messenger: the ``MessengerClient`` protocol and its Telethon adapter.

``sync.py`` needs very little of a messenger: resolve a ``SourceRef`` to the source's
identity, and stream its messages oldest first from an id on. ``TelethonMessengerClient``
provides that over Telethon's ``TelegramClient`` and is the one place where Telethon's
errors become the toolkit's (``FloodWaitError`` → ``UpstreamRateLimited(retry_after)``, a
missing source → ``SourceNotFound``, a dead session → ``ConfigError``, anything else →
``UpstreamError``): they are translated here, never swallowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from toolkit.config import Settings
from toolkit.errors import (
    ConfigError,
    SourceNotFound,
    ToolkitError,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.extras import require
from toolkit.models import Message, SourceKind, SourceRef

# Telethon (and ``live_convert``, which reads its types) is imported where a live sync
# uses it: the workspace and ``sync`` need only the protocol below.
if TYPE_CHECKING:
    from telethon import TelegramClient


@dataclass(frozen=True, slots=True)
class ResolvedSource:
    """A source as the messenger knows it; ``entity`` is the client's own handle on it."""

    internal_id: int
    title: str
    kind: SourceKind
    handle: str | None
    entity: Any = None
    chat_type: str | None = None
    forum: bool = False
    topics: dict[int, str] = field(default_factory=dict)
    """Topic titles seen while streaming (``topic_created``/``topic_edit``), for the store."""
    commented: dict[int, int] = field(default_factory=dict)
    """A channel's posts seen while streaming that have comments: post id → the id of
    the discussion group that holds them (``MessageReplies.channel_id``)."""


class MessengerClient(Protocol):
    """What a live sync asks of a messenger client."""

    async def connect(self) -> None:
        """Open the connection (and check the session is authorised)."""
        ...

    async def disconnect(self) -> None:
        """Close the connection."""
        ...

    async def resolve(self, ref: SourceRef) -> ResolvedSource:
        """The source a reference names; ``SourceNotFound`` when the messenger has none."""
        ...

    def iter_messages(
        self, source: ResolvedSource, *, source_id: int, min_id: int = 0, limit: int | None = None
    ) -> AsyncIterator[Message]:
        """Messages with id > ``min_id``, oldest first, at most ``limit`` (all when ``None``).

        Raises ``UpstreamRateLimited`` for a FloodWait, ``UpstreamError`` for other failures.
        """
        ...


class CommentsClient(MessengerClient, Protocol):
    """A messenger client that also reads a channel's comments (``--with-comments``)."""

    async def resolve_discussion(self, group_id: int) -> ResolvedSource:
        """The discussion group (linked to a channel) with this id."""
        ...

    def iter_comments(
        self, channel: ResolvedSource, post_id: int, *, source_id: int
    ) -> AsyncIterator[Message]:
        """The discussion group's copy of post ``post_id`` of ``channel``, then its
        comments oldest first, as messages of the group's source ``source_id``."""
        ...


_CREDENTIALS_HELP = (
    "live sync needs MLENS_MESSENGER_API_ID, MLENS_MESSENGER_API_HASH (from my.telegram.org) "
    "and MLENS_MESSENGER_SESSION (a Telethon StringSession)"
)


def translate_error(exc: BaseException, *, what: str) -> ToolkitError | None:
    """The toolkit error for a Telethon or network failure, or ``None`` if it is not one.

    Args:
        exc: the exception Telethon (or the network under it) raised.
        what: what was being done, for the message (``"reading @handle"``).
    """
    from telethon import errors

    # RPC errors that mean "this source does not exist or is not readable by this account".
    not_found = (
        errors.UsernameNotOccupiedError,
        errors.UsernameInvalidError,
        errors.ChannelPrivateError,
        errors.ChannelInvalidError,
        errors.ChannelBannedError,
        errors.ChatForbiddenError,
        errors.ChatIdInvalidError,
        errors.PeerIdInvalidError,
    )
    if isinstance(exc, errors.FloodError):
        seconds = float(getattr(exc, "seconds", 0) or 0)
        return UpstreamRateLimited(
            f"the messenger asks to wait {seconds:g} s before {what}", retry_after=seconds
        )
    if isinstance(exc, not_found):
        return SourceNotFound(f"the messenger has no readable source for {what}: {exc}")
    if isinstance(exc, errors.UnauthorizedError | errors.AuthKeyError):
        return ConfigError(f"the messenger session is not authorised ({exc}); {_CREDENTIALS_HELP}")
    if isinstance(exc, errors.TimedOutError | asyncio.TimeoutError | TimeoutError):
        return UpstreamTimeout(f"the messenger did not answer in time while {what}")
    if isinstance(exc, errors.RPCError | ConnectionError | OSError):
        return UpstreamError(f"the messenger failed while {what}: {exc}")
    return None


@contextmanager
def _translated(what: str) -> Iterator[None]:
    try:
        yield
    except ToolkitError:
        raise
    except Exception as exc:
        mapped = translate_error(exc, what=what)
        if mapped is None:
            raise
        raise mapped from exc


@asynccontextmanager
async def _closing(stream: Any) -> AsyncIterator[Any]:
    """``stream``, closed when the block ends however it ends: Telethon's
    ``RequestIter`` has nothing to close; an async generator (a test's fake) has."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


def build_telegram_client(settings: Settings) -> TelegramClient:
    """A Telethon client from the settings' credentials (not connected yet).

    Raises:
        ConfigError: a credential is missing, or the session string is not a StringSession.
    """
    if not settings.messenger.configured:
        raise ConfigError(_CREDENTIALS_HELP)
    require("telethon", extra="live", feature="live sync")
    from telethon import TelegramClient
    from telethon.sessions import StringSession

    assert settings.messenger.api_hash is not None
    assert settings.messenger.session is not None
    try:
        session = StringSession(settings.messenger.session.get_secret_value().strip())
    except Exception as exc:  # Telethon raises ValueError or binascii.Error on garbage.
        raise ConfigError(
            f"MLENS_MESSENGER_SESSION is not a valid Telethon StringSession ({exc})"
        ) from exc
    return TelegramClient(
        session,
        settings.messenger.api_id,
        settings.messenger.api_hash.get_secret_value(),
        # Every FloodWait reaches sync.py, which decides between sleeping and raising.
        flood_sleep_threshold=0,
        receive_updates=False,
    )


class TelethonMessengerClient:
    """``MessengerClient`` over a Telethon ``TelegramClient`` (or anything shaped like one).

    Args:
        telegram: a ``TelegramClient``; tests pass an offline fake with the same methods.
    """

    def __init__(self, telegram: Any) -> None:
        self.telegram = telegram

    @classmethod
    def from_settings(cls, settings: Settings) -> TelethonMessengerClient:
        """Build the adapter from ``MLENS_MESSENGER_*`` settings; ``ConfigError`` if missing."""
        return cls(build_telegram_client(settings))

    async def connect(self) -> None:
        """Connect and make sure the session belongs to a logged-in account."""
        with _translated("connecting"):
            await self.telegram.connect()
            authorised = await self.telegram.is_user_authorized()
        if not authorised:
            raise ConfigError(f"the messenger session is not logged in; {_CREDENTIALS_HELP}")

    async def disconnect(self) -> None:
        """Close the connection."""
        with _translated("disconnecting"):
            await self.telegram.disconnect()

    async def resolve(self, ref: SourceRef) -> ResolvedSource:
        """Resolve a public handle or a private ``c/<id>`` to the source's identity."""
        from telethon.tl import types as tl

        from toolkit.ingest.live.convert import (
            display_name,
            entity_chat_type,
            entity_handle,
            entity_kind,
        )

        target: Any = ref.handle if ref.handle is not None else tl.PeerChannel(ref.internal_id or 0)
        with _translated(f"resolving {ref.key}"):
            try:
                entity = await self.telegram.get_entity(target)
            except ValueError as exc:
                # Telethon's way of saying "no such username / not in this session's cache".
                raise SourceNotFound(f"the messenger knows no source {ref.key}: {exc}") from exc
        if isinstance(entity, tl.ChannelForbidden | tl.ChatForbidden):
            raise SourceNotFound(f"source {ref.key} is not readable by this account")
        return ResolvedSource(
            internal_id=int(entity.id),
            title=display_name(entity) or ref.key,
            kind=entity_kind(entity),
            handle=entity_handle(entity) or ref.handle,
            entity=entity,
            chat_type=entity_chat_type(entity),
            forum=bool(getattr(entity, "forum", False)),
        )

    async def iter_messages(
        self, source: ResolvedSource, *, source_id: int, min_id: int = 0, limit: int | None = None
    ) -> AsyncIterator[Message]:
        """Messages with id > ``min_id``, oldest first, converted to toolkit messages."""
        from toolkit.ingest.live.convert import convert_message, topic_title

        what = f"reading messages of {source.title!r} after id {min_id}"
        stream = self.telegram.iter_messages(
            source.entity, min_id=min_id, reverse=True, limit=limit
        )
        async with _closing(stream):
            with _translated(what):
                async for raw in stream:
                    titled = topic_title(raw)
                    if titled is not None:
                        source.topics[titled[0]] = titled[1]
                    replies: Any = getattr(raw, "replies", None)
                    if (
                        getattr(replies, "comments", False)
                        and replies.replies
                        and replies.channel_id
                    ):
                        source.commented[int(raw.id)] = int(replies.channel_id)
                    message = convert_message(raw, source_id, forum=source.forum)
                    if message is not None:
                        yield message

    async def resolve_discussion(self, group_id: int) -> ResolvedSource:
        """The discussion group with this id (known from the channel's posts)."""
        return await self.resolve(SourceRef(raw=f"c/{group_id}", internal_id=group_id))

    async def iter_comments(
        self, channel: ResolvedSource, post_id: int, *, source_id: int
    ) -> AsyncIterator[Message]:
        """The group's copy of a channel post, then the post's comments oldest first."""
        from telethon.tl import functions

        from toolkit.ingest.live.convert import convert_message

        what = f"reading the comments of post {post_id} of {channel.title!r}"
        with _translated(what):
            found = await self.telegram(
                functions.messages.GetDiscussionMessageRequest(peer=channel.entity, msg_id=post_id)
            )
        from telethon import utils

        known = [*(getattr(found, "users", None) or []), *(getattr(found, "chats", None) or [])]
        entities = {utils.get_peer_id(e): e for e in known}
        copies = sorted(getattr(found, "messages", None) or [], key=lambda m: m.id)
        for raw in copies[:1]:
            raw._finish_init(self.telegram, entities, None)  # as Telethon does for results
            message = convert_message(raw, source_id)
            if message is not None:
                yield message
        stream = self.telegram.iter_messages(channel.entity, reply_to=post_id, reverse=True)
        async with _closing(stream):
            with _translated(what):
                async for raw in stream:
                    message = convert_message(raw, source_id)
                    if message is not None:
                        yield message
