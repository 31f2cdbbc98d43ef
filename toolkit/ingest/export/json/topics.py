"""Forum topics of an exported chat: which topic each message is in, each topic's title.

In an export a topic is its ``topic_created`` service message: the topic's id is that
message's id. A message posted in a topic replies either to that service message or to
another message of the topic (the export keeps no other trace of the topic), so the
topic follows the reply chain. Messages outside any topic, in a chat that has topics,
are in General (id 1); the store puts them there once the chat's topics are recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.controls import clean_text


@dataclass
class TopicTracker:
    """Follows one chat's topics while its messages stream by (in id order)."""

    titles: dict[int, str] = field(default_factory=dict)
    _topic_of: dict[int, int | None] = field(default_factory=dict)

    def service(self, raw: dict[str, Any], message_id: int) -> int | None:
        """Record a ``topic_created``/``topic_edit`` service message; return its topic."""
        action = raw.get("action")
        if action == "topic_created":
            title = raw.get("title")
            title = clean_text(title) if isinstance(title, str) else ""
            self.titles[message_id] = title if title.strip() else "Topic"
            self._topic_of[message_id] = message_id
            return message_id
        target = raw.get("reply_to_message_id")
        topic = self._topic_of.get(target) if isinstance(target, int) else None
        if action == "topic_edit" and topic is not None:
            title = raw.get("new_title")
            if isinstance(title, str) and (title := clean_text(title)).strip():
                self.titles[topic] = title
        return topic

    def message(self, message_id: int, reply_to: int | None) -> tuple[int | None, int | None]:
        """``(topic id, reply_to)`` of a regular message.

        A reply to the topic's own service message is not a reply to anyone: its
        ``reply_to`` becomes ``None``.
        """
        if not self.titles:
            return None, reply_to
        topic = self._topic_of.get(reply_to) if reply_to is not None else None
        self._topic_of[message_id] = topic
        if reply_to is not None and reply_to in self.titles:
            return topic, None
        return topic, reply_to
