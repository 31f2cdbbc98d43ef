"""Build ``Table`` results from the toolkit's models: sources, messages, per-day counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

from toolkit.models import Message, SearchHit, Source, SourceStats, TopicStats
from toolkit.notebook.table import Table
from toolkit.refs import message_link
from toolkit.weights import SearchWeights

if TYPE_CHECKING:
    from toolkit.ingest.export.report import ImportReport

SOURCE_COLUMNS = [
    "ref",
    "title",
    "kind",
    "messages",
    "first_message_at",
    "last_message_at",
    "last_synced_at",
    "timezone",
    "topics",
]
TOPIC_COLUMNS = ["topic_id", "title", "messages", "last_message_at"]
IMPORT_COLUMNS = ["ref", "title", "kind", "inserted", "updated", "unchanged", "skipped", "embedded"]
MESSAGE_COLUMNS = [
    "messenger_message_id",
    "posted_at",
    "sender",
    "sender_peer_id",
    "text",
    "media",
    "reactions",
    "reply_to",
    "topic_id",
    "message_link",
]


def sources_table(stats: Iterable[SourceStats]) -> Table:
    """One row per source: canonical ref, title, kind, message count, time span and its
    own time zone."""
    rows = [
        {
            "ref": s.source.key,
            "title": s.source.title,
            "kind": s.source.kind.value,
            "messages": s.message_count,
            "first_message_at": s.first_message_at,
            "last_message_at": s.last_message_at,
            "last_synced_at": s.last_synced_at,
            "timezone": s.source.timezone,
            "topics": [
                {"topic_id": t.topic_id, "title": t.title, "messages": t.message_count}
                for t in s.topics
            ],
        }
        for s in stats
    ]
    return Table(rows, columns=SOURCE_COLUMNS, title="Sources")


def reactions_text(message: Message) -> str:
    """A message's reactions for people: ``👍 3  🔥 1``, the most given first; ``""`` for
    none."""
    return "  ".join(f"{key} {count}" for key, count in message.reactions)


def messages_table(source: Source, messages: Sequence[Message]) -> Table:
    """One row per message, oldest first, with the sender's name, its reactions and the
    message link."""
    rows = [
        {
            "messenger_message_id": m.messenger_message_id,
            "posted_at": m.posted_at,
            "sender": m.sender_name or m.sender_peer_id,
            "sender_peer_id": m.sender_peer_id,
            "text": m.text,
            "media": m.media,
            "reactions": reactions_text(m),
            "reply_to": m.reply_to,
            "topic_id": m.topic_id,
            "message_link": message_link(source, m.messenger_message_id, topic_id=m.topic_id),
        }
        for m in messages
    ]
    return Table(rows, columns=MESSAGE_COLUMNS, title=f"{source.title} ({source.key})")


def per_day_table(source: Source, days: Iterable[date] | Mapping[date, int]) -> Table:
    """Messages per UTC day (a day per message, or counts by day), with zero rows for
    quiet days between the first and the last."""
    counts = Counter(days)
    rows: list[dict[str, object]] = []
    if counts:
        day, last = min(counts), max(counts)
        while day <= last:
            rows.append({"day": day, "messages": counts.get(day, 0)})
            day += timedelta(days=1)
    return Table(rows, columns=["day", "messages"], title=f"{source.title}: messages per day")


def explain_table(hits: Sequence[SearchHit], weights: SearchWeights) -> Table:
    """Each hit's signals and their weighted shares of the score (hits need ``signals``).

    ``score = short_factor × relevance``, ``relevance`` the sum of the three parts.
    """
    total = weights.semantic + weights.lexical + weights.phrase
    share = {"semantic": weights.semantic, "lexical": weights.lexical, "phrase": weights.phrase}
    rows = []
    for rank, hit in enumerate(hits, 1):
        signals = hit.signals or {}
        parts = {f"{name}_part": w * signals.get(name, 0.0) / total for name, w in share.items()}
        rows.append(
            {
                "rank": rank,
                "messenger_message_id": hit.messenger_message_id,
                "score": hit.score,
                **{name: signals.get(name) for name in (*share, "short_factor")},
                **parts,
                "relevance": sum(parts.values()),
                "text": hit.text,
            }
        )
    columns = ["rank", "messenger_message_id", "score", *share, "short_factor"]
    columns += [*(f"{name}_part" for name in share), "relevance", "text"]
    return Table(rows, columns=columns, title="Score = short_factor × relevance")


def import_table(report: ImportReport, embedded: Mapping[int, int]) -> Table:
    """One row per source an import touched: what changed, and how many were embedded."""
    rows = [
        {
            "ref": s.source.key,
            "title": s.source.title,
            "kind": s.source.kind.value,
            "inserted": s.result.inserted,
            "updated": s.result.updated,
            "unchanged": s.result.unchanged,
            "skipped": s.skipped,
            "embedded": embedded.get(s.source.id, 0),
        }
        for s in report.sources
    ]
    # The title is the import's one-line report: what was stored, skipped and why.
    return Table(rows, columns=IMPORT_COLUMNS, title="; ".join([report.line(), *report.warnings()]))


def embedded_table(embedded: Iterable[tuple[Source, int]]) -> Table:
    """One row per source: its ref, title and how many messages were embedded."""
    rows = [{"ref": s.key, "title": s.title, "embedded": n} for s, n in embedded]
    return Table(rows, columns=["ref", "title", "embedded"], title="Embedded")


def topics_table(source: Source, topics: Sequence[TopicStats]) -> Table:
    """One row per forum topic: id, title, message count and last message time."""
    rows = [
        {
            "topic_id": t.topic_id,
            "title": t.title,
            "messages": t.message_count,
            "last_message_at": t.last_message_at,
        }
        for t in topics
    ]
    return Table(rows, columns=TOPIC_COLUMNS, title=f"Topics of {source.title} ({source.key})")
