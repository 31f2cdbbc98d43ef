"""Service messages of a Telegram Desktop HTML export, read back into the JSON export's fields.

The HTML exporter writes a service message as one English sentence (``Alice invited Bob
and Carol``, ``Channel «News» created``) where the JSON exporter writes ``actor`` and
``action`` fields. ``service_fields`` recognises the exporter's sentences and returns the
JSON fields they stand for, so that ``export_text.service_text`` writes the very text the
JSON import of the same chat stores. A sentence it does not know is kept as it is
(``information_text``), the actor unknown.

Pure functions, no I/O. The sentences follow Telegram Desktop's ``export_output_html.cpp``:
``serviceFrom`` (the actor's name) comes first, a channel's own actions have no actor
(the channel itself is the actor, as in the JSON export).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# One list of names as the exporter joins it: "A", "A and B", "A, B and C".
_AND = re.compile(r", | and ")
_QUOTED = r"«(?P<title>.*)»"
_A = r"^(?P<actor>.+?) "  # the actor's name, first


def names(text: str) -> list[str]:
    """The names of an exporter's list (``A, B and C``); names holding ", " split too."""
    return [part for part in _AND.split(text.strip()) if part]


def _members(match: re.Match[str]) -> dict[str, Any]:
    return {"members": names(match["who"])}


def _title(match: re.Match[str]) -> dict[str, Any]:
    return {"title": match["title"]}


def _new_title(match: re.Match[str]) -> dict[str, Any]:
    return {"new_title": match["title"]}


def _one(match: re.Match[str]) -> dict[str, Any]:
    return {"members": [match["who"]]}


Rule = tuple[re.Pattern[str], str, Callable[[re.Match[str]], dict[str, Any]] | None]


def _rule(
    pattern: str, action: str, extra: Callable[[re.Match[str]], dict[str, Any]] | None
) -> Rule:
    return re.compile(pattern), action, extra


# (sentence, JSON action, extra fields). An actor group is the leading name; sentences
# without one are a channel's (its name is the actor).
_RULES: list[Rule] = [
    _rule(_A + rf"created group {_QUOTED}(?: with members .*)?$", "create_group", _title),
    _rule(rf"^Channel {_QUOTED} created$", "create_channel", _title),
    _rule(rf"^Channel title changed to {_QUOTED}$", "edit_group_title", _title),
    _rule(_A + rf"changed group title to {_QUOTED}$", "edit_group_title", _title),
    _rule(r"^Channel photo changed$", "edit_group_photo", None),
    _rule(_A + r"changed group photo$", "edit_group_photo", None),
    _rule(r"^Channel photo removed$", "delete_group_photo", None),
    _rule(_A + r"removed group photo$", "delete_group_photo", None),
    _rule(
        _A + r"invited (?P<who>.+) to the (?:voice|video) chat$", "invite_to_group_call", _members
    ),
    _rule(_A + r"invited (?P<who>.+)$", "invite_members", _members),
    _rule(_A + r"removed (?P<who>.+)$", "remove_members", _one),
    _rule(_A + r"joined group by link from .*$", "join_group_by_link", None),
    _rule(_A + r"joined group by request$", "join_group_by_request", None),
    _rule(_A + r"converted this group to a supergroup$", "migrate_to_supergroup", None),
    _rule(
        _A + rf"converted a basic group to this supergroup {_QUOTED}$", "migrate_from_group", _title
    ),
    _rule(r"^History cleared$", "clear_history", None),
    _rule(_A + r"started (?:a )?(?:voice|video) chat(?: \(\d+ seconds\))?$", "group_call", None),
    _rule(r"^(?:Voice|Video) chat(?: \(\d+ seconds\))?$", "group_call", None),
    _rule(_A + r"scheduled a (?:voice|video) chat for .*$", "group_call_scheduled", None),
    _rule(r"^(?:Voice|Video) chat scheduled for .*$", "group_call_scheduled", None),
    _rule(_A + r"has set messages (?:to|not to) auto-delete.*$", "set_messages_ttl", None),
    _rule(r"^New messages will (?:not )?auto-delete.*$", "set_messages_ttl", None),
    _rule(_A + r"(?:changed chat theme to .*|disabled chat theme)$", "edit_chat_theme", None),
    _rule(r"^Channel theme (?:was changed to .*|was disabled)$", "edit_chat_theme", None),
    _rule(_A + rf"created topic {_QUOTED}$", "topic_created", _title),
    _rule(_A + rf"changed topic title to {_QUOTED}(?:,icon to «.*»)?$", "topic_edit", _new_title),
    _rule(_A + r"changed topic icon to «.*»$", "topic_edit", None),
    _rule(_A + r"joined Telegram$", "joined_telegram", None),
]

_PINNED = re.compile(r"^(?P<actor>.+?) pinned this message$")


def service_fields(text: str, *, chat_title: str, pinned: int | None) -> dict[str, Any]:
    """The JSON export's ``actor``/``action`` fields of an HTML service sentence.

    Args:
        text: the sentence as shown (links read as their text).
        chat_title: the chat's name: the actor of a channel's own actions.
        pinned: the id a ``pinned this message`` link points at, if any.

    Returns:
        ``{"actor": ..., "action": ..., ...}``, or ``{"information_text": text}`` (actor
        unknown) for a sentence the exporter's list does not hold.
    """
    if pinned is not None and (match := _PINNED.match(text)):
        return {"actor": match["actor"], "action": "pin_message", "message_id": pinned}
    for pattern, action, extra in _RULES:
        match = pattern.match(text)
        if match is None:
            continue
        fields = match.groupdict()
        actor = fields.get("actor") or (chat_title if action != "clear_history" else None)
        out: dict[str, Any] = {"actor": actor, "action": action}
        if extra is not None:
            out |= extra(match)
        return out
    return {"actor": None, "information_text": text}
