"""Cached summaries: the key that identifies a result, and its JSON form in the store.

The key covers the source, the family, the variant, the forum topic (a topic's summary
names it), the language, the source's time zone (times are read and written in it),
what a source summary says it read of its source (``Coverage``: counts and span), the
engine's identity (the LLM endpoint, model and prompt version, or the extractive
algorithm's version and the embedding model), a hash of the content of the messages the
engine reads (ids, times, authors, texts, reactions) and how many the window selected
(a sample of 300 of 2,000 is not one of 300 of 2,100). So an edit, a new message, new
reactions or a prompt change never serves a stale result.

A period enters the key by its content, not by its raw bounds: a request whose
``ended_at`` moves by a second, a minute or an hour over the same messages is the same
summary (no second upstream bill); the bounds count only by the years they span in the
source's zone (the dates a digest writes show a year by them). An empty period, whose
summary names its bounds, is keyed by them to the minute.
The source enters the key by its canonical reference (``@handle`` or ``c/<internal
id>``), never by the store's own id: ``mlens copy-store`` carries cached results over
to a store where the source has another id.

The cache never sits on a request's path: a hit is a read (its use is recorded later),
and a new result is written by the store's background writer (``write_behind``) after
the answer is on its way. It is bounded (``Settings.summary.cache_max_entries`` and
``MLENS_SUMMARY_CACHE_MAX_BYTES``): each write removes the least recently used entries past
either bound. A write the busy writer drops costs one recomputation, never an error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

from toolkit.config import Settings
from toolkit.models import (
    Message,
    Section,
    SectionItem,
    SectionKind,
    Source,
    Summary,
    iso_z,
    utc,
)
from toolkit.store.base import MessageStore
from toolkit.summarize.context import SummaryContext


def content_hash(messages: Sequence[Message]) -> str:
    """SHA-256 over what a summary reads from each message (ids, times, authors, topic,
    text, and the audience's answer: reactions, views, forwards)."""
    digest = hashlib.sha256()
    for m in messages:
        for part in (
            m.messenger_message_id,
            iso_z(m.posted_at),
            m.sender_name or m.sender_peer_id or "",
            m.reply_to or "",
            m.forwarded_from or "",
            m.topic_id or "",
            m.text,
        ):
            digest.update(str(part).encode())
            digest.update(b"\x00")
        if m.reactions or m.views is not None or m.forwards is not None:
            # Only then: a message nobody answered hashes as before they were stored.
            digest.update(repr((m.reactions, m.views, m.forwards)).encode())
            digest.update(b"\x00")
        digest.update(b"\x01")
    return digest.hexdigest()


def _coverage(ctx: SummaryContext) -> list[object] | None:
    """What a source summary says it read (its counts and span), for the key."""
    c = ctx.coverage
    if c is None:
        return None
    return [c.total, c.read, iso_z(c.first), iso_z(c.last), c.writers, c.readers]


def _period(ctx: SummaryContext, messages: Sequence[Message]) -> list[object] | None:
    """The period as the key knows it: the years its bounds span in the source's zone, or,
    for no messages, the bounds to the minute (an empty summary names them)."""
    if ctx.started_at is None or ctx.ended_at is None:
        return None
    if not messages:
        return [t.strftime("%Y-%m-%dT%H:%MZ") for t in (utc(ctx.started_at), utc(ctx.ended_at))]
    last = ctx.ended_at - timedelta(microseconds=1)
    return [
        "years",
        ctx.started_at.astimezone(ctx.timezone).year,
        last.astimezone(ctx.timezone).year,
    ]


def cache_key(
    source: Source,
    ctx: SummaryContext,
    engine_id: str,
    messages: Sequence[Message],
    *,
    selected: int | None = None,
) -> str:
    """The cache key of one summary request (``engine_id``: ``SummaryEngine.identity``;
    ``messages``: those the engine reads, of ``selected`` the request selected)."""
    parts = {
        "source": source.key,
        "family": ctx.family,
        "kind": ctx.kind.value,
        "title": ctx.title,
        "topic": ctx.topic,
        "topics": [list(pair) for pair in ctx.topics],
        "timezone": str(ctx.timezone),
        "period": _period(ctx, messages),
        "language": ctx.language,
        "coverage": _coverage(ctx),
        "engine": engine_id,
        "content": content_hash(messages),
        "selected": len(messages) if selected is None else selected,
    }
    if ctx.inferred_zone:  # the digest says so: not the answer of a zone set or exported
        parts["inferred_zone"] = ctx.inferred_zone
    raw = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return "summary:" + hashlib.sha256(raw.encode()).hexdigest()


def load_cached(store: MessageStore, key: str, source_ref: str) -> Summary | None:
    """A cached summary under ``key``, echoing ``source_ref`` as this request gave it; a hit
    records its use off the caller's path."""
    raw = store.cache_get(key)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        summary = Summary(
            source_ref=source_ref,
            summary=data["summary"],
            sections=[_section(s) for s in data["sections"]],
            important_messenger_message_ids=list(data["important_messenger_message_ids"]),
            engine=data["engine"],
            language=data["language"],
            messages_without_vector=int(data.get("messages_without_vector", 0)),
            sampled=_pair(data.get("sampled")),
            **{name: int(data.get(name, 0)) for name in _COUNTS},
            summary_offline=bool(data.get("summary_offline", False)),
        )
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable entry is recomputed and overwritten
    used = datetime.now(UTC)
    store.write_behind(lambda: store.cache_touch(key, used))
    return summary


def _pair(value: object) -> tuple[int, int] | None:
    """A cached ``sampled`` (a JSON list of two counts), or ``None``."""
    if isinstance(value, list) and len(value) == 2:
        return int(value[0]), int(value[1])
    return None


_COUNTS = ("items_kept", "items_dropped", "items_rewritten", "items_offline")
"""A summary's grounding counts (entries written before them read as 0)."""


def _section(data: dict[str, object]) -> Section:
    """A cached section (entries written before sections had kinds and items read as
    threads without items)."""
    items = data.get("items") or []
    assert isinstance(items, list)
    return Section(
        str(data["title"]),
        str(data["body"]),
        SectionKind(str(data.get("kind", SectionKind.THREAD))),
        tuple(
            SectionItem(str(i["text"]), tuple(map(str, i["messenger_message_ids"]))) for i in items
        ),
    )


def store_cached(store: MessageStore, key: str, summary: Summary, settings: Settings) -> bool:
    """Cache ``summary`` under ``key`` off the caller's path (the store's background
    writer), within the settings' bounds; ``False`` when the busy writer dropped it."""
    value = json.dumps(asdict(summary), ensure_ascii=False)
    if settings.summary.cache_max_entries == 0:
        return False
    return store.write_behind(
        lambda: store.cache_put(
            key,
            value,
            max_entries=settings.summary.cache_max_entries,
            max_bytes=settings.summary.cache_max_bytes,
        )
    )
