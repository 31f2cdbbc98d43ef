"""Walk the parse events of a Telegram Desktop JSON export, one message at a time.

``walk`` turns ijson's ``(prefix, event, value)`` stream into three kinds of items:
``ChatOpened`` when a chat's message list begins, ``ExportedMessage`` for each message
object (built alone, so memory stays flat however large the file), and
``ChatClosed`` when the chat's object ends. Both export shapes are handled::

    single chat      {"name", "type", "id", "messages": [...]}
    full account     {..., "chats": {"list": [chat, ...]}, "left_chats": {"list": [...]}}

A chat's ``id`` must come before its messages (the exporter writes it first, and so does
any tool that sorts keys); ``name`` and ``type`` may come after and arrive with
``ChatClosed``. Structural problems raise ``ValueError`` with the reason; ``Cursor``
keeps where the walk is so the caller can say where a file broke.

Work is bounded for any input: the events come from ``export_limits.export_events``
(nesting and string limits, checked before anything is built), and ``walk`` refuses a
message object of more than ``MAX_MESSAGE_EVENTS`` parse events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ijson.common import ObjectBuilder

from toolkit.controls import clean_text
from toolkit.ingest.export.json.messages import chat_id

# Where chat objects live: the root of a single-chat export, the lists of a full one.
CHAT_SCOPES = ("", "chats.list.item", "left_chats.list.item")


def _child(scope: str, key: str) -> str:
    return f"{scope}.{key}" if scope else key


_META = {_child(s, k): (s, k) for s in CHAT_SCOPES for k in ("id", "name", "type")}
_LISTS = {_child(s, "messages"): s for s in CHAT_SCOPES}
_ITEMS = {_child(s, "messages") + ".item": s for s in CHAT_SCOPES}
_SCALARS = {"null", "boolean", "integer", "double", "number", "string"}

# Parse events in one message object: a message has tens to hundreds (text entities);
# a million-field object would be built in memory, so it is refused.
MAX_MESSAGE_EVENTS = 200_000


@dataclass
class ChatHeader:
    """What the export says about one chat (filled in as its keys arrive)."""

    scope: str
    id: int | None = None
    name: str | None = None
    type: str | None = None

    @property
    def in_account_export(self) -> bool:
        """Whether the chat sits in a full-account export's list."""
        return self.scope != ""


def chat_label(chat: ChatHeader) -> str:
    """``chat 'Name' (id 1)``, or ``chat id 1`` while the name is not known yet."""
    return f"chat {chat.name!r} (id {chat.id})" if chat.name else f"chat id {chat.id}"


@dataclass(frozen=True, slots=True)
class ChatOpened:
    """A chat's message list begins (its ``id`` is known)."""

    chat: ChatHeader


@dataclass(frozen=True, slots=True)
class ExportedMessage:
    """One message object, as parsed, with its 0-based index in the chat."""

    chat: ChatHeader
    index: int
    data: Any


@dataclass(frozen=True, slots=True)
class ChatClosed:
    """A chat's object ended; ``chat`` now has every key the export gave."""

    chat: ChatHeader


Item = ChatOpened | ExportedMessage | ChatClosed


@dataclass
class Cursor:
    """Where the walk is: the current chat, the last complete message, whether any chat was seen."""

    chat: ChatHeader | None = None
    index: int = -1
    last_id: Any = None
    chats_seen: int = 0
    export_keys: bool = False
    reading: bool = False

    def describe(self) -> str:
        """``in chat 'X' (id 1), after message #5 (id 42)`` or ``before the first chat``."""
        if self.chat is None:
            return "before the first chat" if not self.chats_seen else "after the last chat"
        if self.reading and self.index < 0:
            return f"in {chat_label(self.chat)}, inside message #1"
        if self.reading:
            return (
                f"in {chat_label(self.chat)}, after message #{self.index + 1} "
                f"(id {self.last_id}), inside message #{self.index + 2}"
            )
        if self.index < 0:
            return f"in {chat_label(self.chat)}, before its first message"
        return f"in {chat_label(self.chat)}, after message #{self.index + 1} (id {self.last_id})"


def _set_meta(chat: ChatHeader, key: str, event: str, value: Any) -> None:
    if key == "id":
        if event not in {"number", "integer"}:
            raise ValueError(f"the chat 'id' must be a number, not {value!r}")
        chat.id = chat_id(value)
    elif event == "string":
        setattr(chat, key, clean_text(value))
    elif event != "null":
        raise ValueError(f"the chat {key!r} must be a string, not {value!r}")


def walk(events: Iterable[tuple[str, str, Any]], cursor: Cursor) -> Iterator[Item]:
    """Yield the chats and messages of an export from its ijson parse events.

    Args:
        events: ``ijson.parse`` output over the export file.
        cursor: updated in place, so a caller catching an error can say where it happened.

    Raises:
        ValueError: the JSON is well formed but not shaped like an export.
    """
    open_chats: dict[str, ChatHeader] = {}
    builder: ObjectBuilder | None = None
    item_prefix = ""
    item_events = 0
    first = True
    for prefix, event, value in events:
        if first:
            first = False
            if event != "start_map":
                raise ValueError("the top level is not a JSON object, so this is no export")
        if builder is not None:
            item_events += 1
            if item_events > MAX_MESSAGE_EVENTS:
                raise ValueError(
                    f"message #{cursor.index + 2} has more than {MAX_MESSAGE_EVENTS} JSON "
                    "values; no message is that large"
                )
            builder.event(event, value)
            if prefix == item_prefix and event == "end_map":
                cursor.index += 1
                message = builder.value
                cursor.last_id = message.get("id")
                cursor.reading = False
                builder = None
                assert cursor.chat is not None
                yield ExportedMessage(cursor.chat, cursor.index, message)
            continue
        if prefix in _ITEMS and _ITEMS[prefix] in open_chats:
            if event != "start_map":
                raise ValueError(f"message #{cursor.index + 2} is not a JSON object")
            builder, item_prefix, item_events = ObjectBuilder(), prefix, 0
            cursor.reading = True
            builder.event(event, value)
            continue
        if event == "map_key" and prefix == "" and value in {"messages", "chats", "left_chats"}:
            cursor.export_keys = True
        if event == "start_map" and prefix in CHAT_SCOPES:
            open_chats[prefix] = ChatHeader(prefix)
        elif prefix in _META and event in _SCALARS and _META[prefix][0] in open_chats:
            scope, key = _META[prefix]
            _set_meta(open_chats[scope], key, event, value)
        elif prefix in _LISTS and _LISTS[prefix] in open_chats:
            chat = open_chats[_LISTS[prefix]]
            if event != "start_array":
                if event == "end_array":
                    continue
                raise ValueError("'messages' must be a list of message objects")
            if chat.id is None:
                raise ValueError("a chat's 'messages' come before its numeric 'id'")
            cursor.chat, cursor.index, cursor.last_id = chat, -1, None
            cursor.chats_seen += 1
            yield ChatOpened(chat)
        elif event == "end_map" and prefix in open_chats:
            chat = open_chats.pop(prefix)
            if cursor.chat is chat:
                yield ChatClosed(chat)
                cursor.chat = None
    if not cursor.export_keys:
        raise ValueError(
            "this JSON is not a Telegram Desktop export: it has no 'messages' list "
            "and no 'chats' section"
        )
