"""Pure conversion of Telethon objects into the toolkit's domain types.

Telethon hands out its own ``Message`` / ``MessageService`` objects (TL types patched
with helpers such as ``sender``); this module turns them into ``toolkit.models.Message``
with the same conventions as the export importer: peers as ``user123`` /
``channel123`` / ``chat123``, UTC datetimes, the attachment kind named as a Telegram
Desktop export names it, and service actions as short readable text. No I/O here.
"""

from __future__ import annotations

import re
from typing import Any

from telethon import utils as tg_utils
from telethon.tl import types as tl

from toolkit.models import Message, SourceKind, utc

_PEER_PREFIX: tuple[tuple[type[Any], str, str], ...] = (
    (tl.PeerUser, "user", "user_id"),
    (tl.PeerChannel, "channel", "channel_id"),
    (tl.PeerChat, "chat", "chat_id"),
)


def peer_key(peer: Any) -> str | None:
    """``user123`` / ``channel123`` / ``chat123`` for a Telethon ``Peer``; ``None`` otherwise."""
    for kind, prefix, attr in _PEER_PREFIX:
        if isinstance(peer, kind):
            return f"{prefix}{getattr(peer, attr)}"
    return None


def display_name(entity: Any) -> str | None:
    """A user's full name (or username), a chat's or channel's title; ``None`` if unknown."""
    if entity is None:
        return None
    name = tg_utils.get_display_name(entity).strip()
    if not name and isinstance(entity, tl.User) and entity.username:
        name = entity.username
    return name or None


def entity_kind(entity: Any) -> SourceKind:
    """A broadcast channel is a channel; groups, supergroups and private chats are chats."""
    if isinstance(entity, tl.Channel) and entity.broadcast:
        return SourceKind.CHANNEL
    return SourceKind.CHAT


def entity_handle(entity: Any) -> str | None:
    """The entity's public handle in lower case (its first active one), if it has any."""
    username = getattr(entity, "username", None)
    if not username:
        for item in getattr(entity, "usernames", None) or []:
            if getattr(item, "active", False):
                username = item.username
                break
    return username.lower() if username else None


def _document_kind(document: Any) -> str:
    attributes = getattr(document, "attributes", None) or []
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeSticker):
            return "sticker"
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeAnimated):
            return "animation"
    for attr in attributes:
        if isinstance(attr, tl.DocumentAttributeVideo):
            return "video_message" if attr.round_message else "video_file"
        if isinstance(attr, tl.DocumentAttributeAudio):
            return "voice_message" if attr.voice else "audio_file"
    return "file"


_MEDIA_KIND: tuple[tuple[type[Any], str], ...] = (
    (tl.MessageMediaPhoto, "photo"),
    (tl.MessageMediaVenue, "venue"),
    (tl.MessageMediaGeoLive, "live_location"),
    (tl.MessageMediaGeo, "location"),
    (tl.MessageMediaContact, "contact"),
    (tl.MessageMediaPoll, "poll"),
    (tl.MessageMediaDice, "dice"),
    (tl.MessageMediaGame, "game"),
    (tl.MessageMediaInvoice, "invoice"),
    (tl.MessageMediaStory, "story"),
)


def media_kind(media: Any) -> str | None:
    """The attachment kind (``photo``, ``video_file``, ``poll`` …) or ``None`` for none.

    A link preview (``MessageMediaWebPage``) is not an attachment: the link is in the text.
    """
    if media is None or isinstance(media, tl.MessageMediaEmpty | tl.MessageMediaWebPage):
        return None
    if isinstance(media, tl.MessageMediaDocument):
        return _document_kind(media.document)
    for kind, name in _MEDIA_KIND:
        if isinstance(media, kind):
            return name
    # Kinds newer than this table (giveaways, paid media …) still mark the message.
    return _words(type(media).__name__.removeprefix("MessageMedia"))


def _words(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", camel).lower().replace(" ", "_")


def _action_names(message: Any, ids: list[int]) -> str:
    entities = list(getattr(message, "action_entities", None) or [])
    names = []
    for i, user_id in enumerate(ids):
        entity = entities[i] if i < len(entities) else None
        names.append(display_name(entity) or f"user{user_id}")
    return ", ".join(names)


def action_text(message: Any) -> str:
    """Readable text for a service message's action, e.g. ``Alice added Bob``."""
    action = message.action
    actor = display_name(getattr(message, "sender", None))
    text: str
    if isinstance(action, tl.MessageActionChatAddUser):
        text = f"added {_action_names(message, list(action.users))}"
    elif isinstance(action, tl.MessageActionChatDeleteUser):
        if message.from_id == tl.PeerUser(action.user_id):
            text = "left the group"
        else:
            text = f"removed {_action_names(message, [action.user_id])}"
    elif isinstance(action, tl.MessageActionChatJoinedByLink):
        text = "joined by invite link"
    elif isinstance(action, tl.MessageActionChatJoinedByRequest):
        text = "joined after a request was approved"
    elif isinstance(action, tl.MessageActionChatCreate):
        text = f"created the group «{action.title}»"
    elif isinstance(action, tl.MessageActionChannelCreate):
        text = f"created the channel «{action.title}»"
    elif isinstance(action, tl.MessageActionChatEditTitle):
        text = f"changed the title to «{action.title}»"
    elif isinstance(action, tl.MessageActionChatEditPhoto):
        text = "changed the photo"
    elif isinstance(action, tl.MessageActionChatDeletePhoto):
        text = "removed the photo"
    elif isinstance(action, tl.MessageActionPinMessage):
        pinned = reply_to_id(message)
        text = f"pinned message {pinned}" if pinned else "pinned a message"
    elif isinstance(action, tl.MessageActionChatMigrateTo):
        text = "upgraded the group to a supergroup"
    elif isinstance(action, tl.MessageActionChannelMigrateFrom):
        text = f"upgraded from the group «{action.title}»"
    elif isinstance(action, tl.MessageActionTopicCreate):
        text = f"created the topic «{action.title}»"
    elif isinstance(action, tl.MessageActionGroupCall):
        duration = action.duration
        text = f"video chat ended after {duration} s" if duration else "started a video chat"
    elif isinstance(action, tl.MessageActionHistoryClear):
        text = "cleared the history"
    else:
        # Actions without a phrase of their own still read as words, not a class name.
        text = _words(type(action).__name__.removeprefix("MessageAction")).replace("_", " ")
    return f"{actor} {text}" if actor else text


def reply_to_id(message: Any) -> int | None:
    """The id of the message replied to, when it is in the same source (else ``None``)."""
    header = message.reply_to
    if not isinstance(header, tl.MessageReplyHeader) or not header.reply_to_msg_id:
        return None
    # A reply quoting a message of another chat points outside this source.
    if header.reply_to_peer_id is not None and header.reply_to_peer_id != message.peer_id:
        return None
    return int(header.reply_to_msg_id)


def forwarded_from(message: Any) -> str | None:
    """Who a forwarded message came from: a name when known, else the peer key."""
    header = message.fwd_from
    if header is None:
        return None
    if header.from_name:
        return str(header.from_name)
    forward = getattr(message, "forward", None)
    if forward is not None:
        name = display_name(forward.sender) or display_name(forward.chat)
        if name:
            return name
    return peer_key(header.from_id) or "hidden"


def sender_of(message: Any) -> tuple[str | None, str | None]:
    """``(sender_peer_id, sender_name)``; an anonymous channel post is sent by the channel."""
    peer = message.from_id
    if peer is None and getattr(message, "post", False):
        peer = message.peer_id
    name = display_name(getattr(message, "sender", None)) or getattr(message, "post_author", None)
    return peer_key(peer), name


def convert_message(message: Any, source_id: int) -> Message | None:
    """Convert a Telethon ``Message`` or ``MessageService`` into a toolkit ``Message``.

    Args:
        message: the object Telethon's ``iter_messages`` yielded.
        source_id: the store's key of the source it belongs to.

    Returns:
        The toolkit message, or ``None`` for a ``MessageEmpty`` (a deleted id).
    """
    if isinstance(message, tl.MessageEmpty) or message.date is None:
        return None
    sender_peer_id, sender_name = sender_of(message)
    is_service = isinstance(message, tl.MessageService)
    edit_date = getattr(message, "edit_date", None)
    return Message(
        source_id=source_id,
        messenger_message_id=int(message.id),
        posted_at=utc(message.date),
        text=action_text(message) if is_service else (message.message or ""),
        sender_peer_id=sender_peer_id,
        sender_name=sender_name,
        reply_to=None if is_service else reply_to_id(message),
        edited_at=utc(edit_date) if edit_date is not None else None,
        is_service=is_service,
        media=None if is_service else media_kind(message.media),
        forwarded_from=None if is_service else forwarded_from(message),
    )
