"""Pure conversion of Telethon objects into the toolkit's domain types.

Telethon hands out its own ``Message`` / ``MessageService`` objects (TL types patched
with helpers such as ``sender``); this module turns them into ``toolkit.models.Message``
with the same conventions as the export importer: peers as ``user123`` /
``channel123`` / ``chat123``, UTC datetimes, the attachment kind named as a Telegram
Desktop export names it, service actions as short readable text, and control characters
cleaned (``toolkit.controls``) as an export's are; reactions as counts under the
export's keys (the emoji, ``custom:<document id>``, ``paid``), with the views and
forwards a channel post shows. No I/O here.
"""

from __future__ import annotations

import re
from typing import Any

from telethon import utils as tg_utils
from telethon.tl import types as tl

from toolkit.controls import clean_message, clean_text
from toolkit.ingest.live.media import media_kind, media_text
from toolkit.models import (
    CUSTOM_REACTION,
    GENERAL_TOPIC,
    PAID_REACTION,
    Message,
    Reactions,
    SourceKind,
    reaction_counts,
    utc,
)

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
    name = clean_text(tg_utils.get_display_name(entity)).strip()
    if not name and isinstance(entity, tl.User) and entity.username:
        name = entity.username
    return name or None


def entity_kind(entity: Any) -> SourceKind:
    """A broadcast channel is a channel; groups, supergroups and private chats are chats."""
    if isinstance(entity, tl.Channel) and entity.broadcast:
        return SourceKind.CHANNEL
    return SourceKind.CHAT


def entity_chat_type(entity: Any) -> str | None:
    """The entity's chat type, named as an export names it (``private_supergroup`` …)."""
    if isinstance(entity, tl.User):
        if getattr(entity, "is_self", False):
            return "saved_messages"
        return "bot_chat" if getattr(entity, "bot", False) else "personal_chat"
    if isinstance(entity, tl.Chat):
        return "private_group"
    if isinstance(entity, tl.Channel):
        public = "public" if entity_handle(entity) else "private"
        return f"{public}_channel" if entity.broadcast else f"{public}_supergroup"
    return None


def topic_of(message: Any, *, forum: bool) -> int | None:
    """The forum topic of a message: its header's top message when it is in a topic,
    its own id when it creates one, General (1) for the rest of a forum; else ``None``."""
    if isinstance(getattr(message, "action", None), tl.MessageActionTopicCreate):
        return int(message.id)
    header = getattr(message, "reply_to", None)
    if isinstance(header, tl.MessageReplyHeader) and header.forum_topic:
        return int(header.reply_to_top_id or header.reply_to_msg_id or GENERAL_TOPIC)
    return GENERAL_TOPIC if forum else None


def topic_title(message: Any) -> tuple[int, str] | None:
    """``(topic id, title)`` when a service message creates or renames a topic."""
    action = getattr(message, "action", None)
    if isinstance(action, tl.MessageActionTopicCreate):
        return int(message.id), clean_text(str(action.title))
    if isinstance(action, tl.MessageActionTopicEdit) and action.title:
        topic = topic_of(message, forum=True)
        return (topic, clean_text(str(action.title))) if topic is not None else None
    return None


def entity_handle(entity: Any) -> str | None:
    """The entity's public handle in lower case (its first active one), if it has any."""
    username = getattr(entity, "username", None)
    if not username:
        for item in getattr(entity, "usernames", None) or []:
            if getattr(item, "active", False):
                username = item.username
                break
    return username.lower() if username else None


def _words(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", camel).lower().replace(" ", "_")


def _action_names(message: Any, ids: list[int]) -> str:
    entities = list(getattr(message, "action_entities", None) or [])
    names = []
    for i, user_id in enumerate(ids):
        entity = entities[i] if i < len(entities) else None
        names.append(display_name(entity) or f"user{user_id}")
    return ", ".join(names)


# Actions that read as one phrase (``{title}``: the action's title).
_PHRASES: dict[type, str] = {
    tl.MessageActionChatJoinedByLink: "joined by invite link",
    tl.MessageActionChatJoinedByRequest: "joined after a request was approved",
    tl.MessageActionChatCreate: "created the group «{title}»",
    tl.MessageActionChannelCreate: "created the channel «{title}»",
    tl.MessageActionChatEditTitle: "changed the title to «{title}»",
    tl.MessageActionChatEditPhoto: "changed the photo",
    tl.MessageActionChatDeletePhoto: "removed the photo",
    tl.MessageActionChatMigrateTo: "upgraded the group to a supergroup",
    tl.MessageActionChannelMigrateFrom: "upgraded from the group «{title}»",
    tl.MessageActionTopicCreate: "created the topic «{title}»",
    tl.MessageActionHistoryClear: "cleared the history",
}


def action_text(message: Any) -> str:
    """Readable text for a service message's action, e.g. ``Alice added Bob``."""
    action = message.action
    actor = display_name(getattr(message, "sender", None))
    phrase = next((p for cls, p in _PHRASES.items() if isinstance(action, cls)), None)
    text: str
    if phrase is not None:
        text = phrase.format(title=getattr(action, "title", ""))
    elif isinstance(action, tl.MessageActionChatAddUser):
        text = f"added {_action_names(message, list(action.users))}"
    elif isinstance(action, tl.MessageActionChatDeleteUser):
        if message.from_id == tl.PeerUser(action.user_id):
            text = "left the group"
        else:
            text = f"removed {_action_names(message, [action.user_id])}"
    elif isinstance(action, tl.MessageActionPinMessage):
        pinned = reply_to_id(message)
        text = f"pinned message {pinned}" if pinned else "pinned a message"
    elif isinstance(action, tl.MessageActionGroupCall):
        duration = action.duration
        text = f"video chat ended after {duration} s" if duration else "started a video chat"
    else:
        # Actions without a phrase of their own still read as words, not a class name.
        text = _words(type(action).__name__.removeprefix("MessageAction")).replace("_", " ")
    return f"{actor} {text}" if actor else text


def reply_to_id(message: Any) -> int | None:
    """The id of the message replied to, when it is in the same source (else ``None``).

    In a forum topic a message that replies to no one still points at the topic's first
    message (``forum_topic`` without ``reply_to_top_id``): that is no reply.
    """
    header = message.reply_to
    if not isinstance(header, tl.MessageReplyHeader) or not header.reply_to_msg_id:
        return None
    if header.forum_topic and not header.reply_to_top_id:
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


def reaction_key(reaction: Any) -> str | None:
    """The key of a Telethon ``Reaction``: the emoji, ``custom:<document id>``, ``paid``;
    another kind by its name (``ReactionStars`` → ``stars``); ``None`` for no reaction."""
    if isinstance(reaction, tl.ReactionEmoji):
        return clean_text(str(reaction.emoticon)).strip() or None
    if isinstance(reaction, tl.ReactionCustomEmoji):
        return f"{CUSTOM_REACTION}{reaction.document_id}"
    if isinstance(reaction, tl.ReactionPaid):
        return PAID_REACTION
    if reaction is None or isinstance(reaction, tl.ReactionEmpty):
        return None
    return _words(type(reaction).__name__.removeprefix("Reaction")) or None


def reactions_of(message: Any) -> Reactions:
    """A message's reaction counts (``MessageReactions.results``); ``()`` for none."""
    found = getattr(message, "reactions", None)
    pairs = []
    for result in getattr(found, "results", None) or []:
        key = reaction_key(getattr(result, "reaction", None))
        if key is not None:
            pairs.append((key, int(getattr(result, "count", 0) or 0)))
    return reaction_counts(pairs)


def _counter(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def convert_message(message: Any, source_id: int, *, forum: bool = False) -> Message | None:
    """Convert a Telethon ``Message`` or ``MessageService`` into a toolkit ``Message``.

    Args:
        message: the object Telethon's ``iter_messages`` yielded.
        source_id: the store's key of the source it belongs to.
        forum: the source is a forum (its messages outside a topic are in General).

    Returns:
        The toolkit message, or ``None`` for a ``MessageEmpty`` (a deleted id).
    """
    if isinstance(message, tl.MessageEmpty) or message.date is None:
        return None
    sender_peer_id, sender_name = sender_of(message)
    is_service = isinstance(message, tl.MessageService)
    edit_date = getattr(message, "edit_date", None)
    return clean_message(
        Message(
            source_id=source_id,
            messenger_message_id=int(message.id),
            posted_at=utc(message.date),
            text=action_text(message) if is_service else (message.message or media_text(message)),
            sender_peer_id=sender_peer_id,
            sender_name=sender_name,
            reply_to=None if is_service else reply_to_id(message),
            edited_at=utc(edit_date) if edit_date is not None else None,
            is_service=is_service,
            media=None if is_service else media_kind(message.media),
            forwarded_from=None if is_service else forwarded_from(message),
            topic_id=topic_of(message, forum=forum),
            reactions=() if is_service else reactions_of(message),
            views=None if is_service else _counter(getattr(message, "views", None)),
            forwards=None if is_service else _counter(getattr(message, "forwards", None)),
        )
    )
