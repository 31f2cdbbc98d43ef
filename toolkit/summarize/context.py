"""What both summary engines need to know about one request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from toolkit.models import Message, SourceKind

Family = Literal["period", "source"]


@dataclass(frozen=True, slots=True)
class SummaryContext:
    """One summary request as the engines see it.

    ``family`` is ``"period"`` (messages of ``[started_at, ended_at)``, which the text
    may name) or ``"source"`` (what the source is about: no period wording at all);
    ``kind`` picks the chat or channel variant; ``language`` is an ISO 639-1 code.
    ``topic`` is the title of the forum topic the messages are limited to (the summary
    is of that topic, not of the source); ``topics`` are a forum's topics as
    ``(id, title)`` pairs (empty for other sources): its messages belong to topics and
    a conversation never crosses one.
    """

    family: Family
    kind: SourceKind
    title: str
    language: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    topic: str | None = None
    topics: tuple[tuple[int, str], ...] = ()

    @property
    def forum(self) -> bool:
        """Whether the source is a forum (has topics)."""
        return bool(self.topics)


def message_text(message: Message) -> str:
    """The text a summary reads from a message: its text, or its media kind when bare."""
    if message.text.strip():
        return message.text
    return f"[{message.media}]" if message.media else ""
