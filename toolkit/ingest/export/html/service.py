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


Extra = Callable[[re.Match[str]], dict[str, Any]]
Rule = tuple[tuple[re.Pattern[str], ...], str, Extra | None]


def _rule(action: str, extra: Extra | None, *sentences: str) -> Rule:
    """The sentences the exporter writes for one JSON action (a group's, then a channel's)."""
    return tuple(re.compile(sentence) for sentence in sentences), action, extra


# _rule(JSON action, extra fields, its sentences). An actor group is the leading name;
# sentences without one are a channel's (its name is the actor).
_RULES: list[Rule] = [
    _rule("create_group", _title, _A + rf"created group {_QUOTED}(?: with members .*)?$"),
    _rule("create_channel", _title, rf"^Channel {_QUOTED} created$"),
    _rule(
        "edit_group_title",
        _title,
        _A + rf"changed group title to {_QUOTED}$",
        rf"^Channel title changed to {_QUOTED}$",
    ),
    _rule("edit_group_photo", None, _A + r"changed group photo$", r"^Channel photo changed$"),
    _rule("delete_group_photo", None, _A + r"removed group photo$", r"^Channel photo removed$"),
    _rule(
        "invite_to_group_call", _members, _A + r"invited (?P<who>.+) to the (?:voice|video) chat$"
    ),
    _rule("invite_members", _members, _A + r"invited (?P<who>.+)$"),
    _rule("remove_members", _one, _A + r"removed (?P<who>.+)$"),
    _rule("join_group_by_link", None, _A + r"joined group by link from .*$"),
    _rule("join_group_by_request", None, _A + r"joined group by request$"),
    _rule("migrate_to_supergroup", None, _A + r"converted this group to a supergroup$"),
    _rule(
        "migrate_from_group", _title, _A + rf"converted a basic group to this supergroup {_QUOTED}$"
    ),
    _rule("clear_history", None, r"^History cleared$"),
    _rule(
        "group_call",
        None,
        _A + r"started (?:a )?(?:voice|video) chat(?: \(\d+ seconds\))?$",
        r"^(?:Voice|Video) chat(?: \(\d+ seconds\))?$",
    ),
    _rule(
        "group_call_scheduled",
        None,
        _A + r"scheduled a (?:voice|video) chat for .*$",
        r"^(?:Voice|Video) chat scheduled for .*$",
    ),
    _rule(
        "set_messages_ttl",
        None,
        _A + r"has set messages (?:to|not to) auto-delete.*$",
        r"^New messages will (?:not )?auto-delete.*$",
    ),
    _rule(
        "edit_chat_theme",
        None,
        _A + r"(?:changed chat theme to .*|disabled chat theme)$",
        r"^Channel theme (?:was changed to .*|was disabled)$",
    ),
    _rule("topic_created", _title, _A + rf"created topic {_QUOTED}$"),
    _rule("topic_edit", _new_title, _A + rf"changed topic title to {_QUOTED}(?:,icon to «.*»)?$"),
    _rule("topic_edit", None, _A + r"changed topic icon to «.*»$"),
    _rule("joined_telegram", None, _A + r"joined Telegram$"),
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
    for patterns, action, extra in _RULES:
        match = next(filter(None, (pattern.match(text) for pattern in patterns)), None)
        if match is None:
            continue
        fields = match.groupdict()
        actor = fields.get("actor") or (chat_title if action != "clear_history" else None)
        out: dict[str, Any] = {"actor": actor, "action": action}
        if extra is not None:
            out |= extra(match)
        return out
    return {"actor": None, "information_text": text}
