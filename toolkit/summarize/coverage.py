"""What a source summary reads of its source, and the sentence that says so.

A source summary reads at most ``messages_limit`` messages with text: all of them when
the source has no more, else a sample spread over its whole life (``sample``), read
from the store's outline of the source so that no text but the sample's is read.
``Coverage`` carries what was read, of how many, over which time, and by how many of
the people who have written: the engine's counts say what they count ("82 participants
have written in it, 18 of them in the messages read"), and a sampled summary says so in
one sentence of the requested language (``note``) that both engines write and no
period-wording guard removes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo

from toolkit.lang.base import LanguagePack
from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.store.base import MessageStore
from toolkit.summarize.sample import spread

YEARS_FROM_DAYS = 366
"""A source older than this (first to last message) says its years, not its days."""


@dataclass(frozen=True, slots=True)
class Coverage:
    """What a source summary read of its source (its topic, when asked).

    ``total`` messages with text (of the senders asked for), from ``first`` to ``last``;
    ``read`` of them read; ``writers`` people (or channels) have written in the source
    (its topic), ``readers`` of them wrote the messages read.
    """

    total: int
    read: int
    first: datetime
    last: datetime
    writers: int
    readers: int

    @property
    def sampled(self) -> bool:
        """Whether the summary read a sample (fewer messages than there are)."""
        return self.read < self.total

    def of(self, messages: Sequence[Message]) -> Coverage:
        """This coverage for the messages an engine actually reads."""
        return replace(self, read=len(messages), readers=authors(messages))


def authors(messages: Sequence[Message]) -> int:
    """How many people (or channels) wrote ``messages``."""
    return len({m.sender_peer_id or m.sender_name for m in messages})


def read_source(
    store: MessageStore,
    source_id: int,
    limit: int,
    where: MessageFilter = MessageFilter(),
) -> tuple[list[Message], Coverage | None]:
    """The messages with text a source summary reads (posting order) and its coverage
    (``None`` when the source has no message with text).

    Args:
        store: the message store.
        source_id: the source's id in the store.
        limit: how many messages to read at most (all when there are no more).
        where: the request's filters (topic, senders), taken before the sample.
    """
    outline = store.message_outline(source_id, where)
    if not outline:
        return [], None
    picked = spread([(at, chars) for _, at, chars in outline], limit)
    messages = store.get_messages(source_id, [outline[i][0] for i in picked])
    # The people of the source (its topic), whatever senders the request asks for.
    everyone = MessageFilter(topic_id=where.topic_id)
    coverage = Coverage(
        total=len(outline),
        read=len(messages),
        first=datetime.fromtimestamp(outline[0][1], tz=UTC),
        last=datetime.fromtimestamp(outline[-1][1], tz=UTC),
        writers=max(store.count_senders(source_id, everyone), authors(messages)),
        readers=authors(messages),
    )
    return messages, coverage


def note(
    book: LanguagePack | None, coverage: Coverage | None, kind: SourceKind, zone: tzinfo = UTC
) -> str:
    """The sentence that says a summary read a sample, in ``book``'s language ("This
    summary reads 500 of its 12,431 messages, sampled from 2019 to 2026."); ``""`` when
    it read every message (or ``book`` is ``None``: a language without a pack).

    The span is in the source's time ``zone`` and shows its years (a source has no
    period to take them from): its days within about a year, else its years only.
    """
    if book is None or coverage is None or not coverage.sampled:
        return ""
    undated = book.dated(None, None)
    first, last = coverage.first.astimezone(zone), coverage.last.astimezone(zone)
    key = "read_sample"
    if last - first > timedelta(days=YEARS_FROM_DAYS):
        span = undated.years(first, last)
    elif first.date() == last.date():
        key, span = "read_sample_day", undated.day(first)
    else:
        span = undated.span(first, last)
    noun = "post" if kind is SourceKind.CHANNEL else "message"
    total = book.counted(coverage.total, noun, "gent")
    return book.sentence(key, read=book.number(coverage.read), total=total, span=span)
