"""What both summary engines need to know about one request."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Literal

from toolkit.lang.base import LanguagePack
from toolkit.models import GENERAL_TOPIC, Message, SourceKind
from toolkit.summarize.coverage import Coverage

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
    a conversation never crosses one. ``timezone`` is the source's own zone
    (``Source.timezone``; UTC when unknown): "tomorrow at 13:40" in its messages is
    read there, and times written back to people are shown there. ``coverage`` (source
    summaries) says what the summary reads of its source: how many of how many messages,
    over which time, by how many of the people who have written.
    """

    family: Family
    kind: SourceKind
    title: str
    language: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    topic: str | None = None
    topics: tuple[tuple[int, str], ...] = ()
    timezone: tzinfo = UTC
    """The source's own zone: the times its messages name ("at 13:40 tomorrow") are in it."""
    coverage: Coverage | None = None
    inferred_zone: str | None = None
    """The zone's label ("UTC+2") when it was inferred from the source's activity (a
    period digest then says so); ``None`` when set, the export's, or unknown."""

    @property
    def forum(self) -> bool:
        """Whether the source is a forum (has topics)."""
        return bool(self.topics)


def message_text(message: Message) -> str:
    """The text a summary reads from a message: its text, or its media kind when bare."""
    if message.text.strip():
        return message.text
    return f"[{message.media}]" if message.media else ""


def forum_topics(
    messages: Sequence[Message], ctx: SummaryContext, book: LanguagePack
) -> list[tuple[int, str]]:
    """The forum topics ``messages`` are in, as ``(id, title)``, the busiest first (then
    by id); empty unless the summary is of a whole forum. A message outside any topic
    is in General; a topic the store does not name is titled by ``book`` ("Topic 7",
    «Тема 7»)."""
    if not ctx.forum or ctx.topic is not None:
        return []
    counts = Counter(m.topic_id or GENERAL_TOPIC for m in messages)
    titles = dict(ctx.topics)
    order = sorted(counts, key=lambda t: (-counts[t], t))
    return [
        (t, titles[t] if t in titles else book.topic_title(t, general=t == GENERAL_TOPIC))
        for t in order
    ]
