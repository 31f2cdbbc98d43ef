"""Cached summaries: the key that identifies a result, and its JSON form in the store.

The key covers the source, the family and period (or "source"), the variant, the
forum topic (a topic's summary names it), the language, the source's time zone (times
are read and written in it), what a source summary says it read of its source
(``Coverage``: counts and span), the engine's identity (the LLM endpoint, model and
prompt version, or the extractive algorithm's version and the embedding model) and a
hash of the selected messages' content (reactions included), so an edit, a new message,
new reactions or a prompt change never serves a stale result.
The source enters the key by its canonical reference (``@handle`` or ``c/<internal
id>``), never by the store's own id: ``mlens copy-store`` carries cached results over
to a store where the source has another id.

The cache never sits on a request's path: a hit is a read (its use is recorded later),
and a new result is written by the store's background writer (``write_behind``) after
the answer is on its way. It is bounded (``Settings.summary_cache_max_entries`` and
``summary_cache_max_bytes``): each write removes the least recently used entries past
either bound. A write the busy writer drops costs one recomputation, never an error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime

from toolkit.config import Settings
from toolkit.models import Message, Section, SectionItem, SectionKind, Source, Summary, iso_z
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


def cache_key(
    source: Source,
    ctx: SummaryContext,
    engine_id: str,
    messages: Sequence[Message],
) -> str:
    """The cache key of one summary request (``engine_id``: ``SummaryEngine.identity``)."""
    parts = {
        "source": source.key,
        "family": ctx.family,
        "kind": ctx.kind.value,
        "title": ctx.title,
        "topic": ctx.topic,
        "topics": [list(pair) for pair in ctx.topics],
        "timezone": str(ctx.timezone),
        "period": [iso_z(t) if t else None for t in (ctx.started_at, ctx.ended_at)],
        "language": ctx.language,
        "coverage": _coverage(ctx),
        "engine": engine_id,
        "content": content_hash(messages),
    }
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
            **{name: int(data.get(name, 0)) for name in _COUNTS},
            summary_offline=bool(data.get("summary_offline", False)),
        )
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable entry is recomputed and overwritten
    used = datetime.now(UTC)
    store.write_behind(lambda: store.cache_touch(key, used))
    return summary


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
    if settings.summary_cache_max_entries == 0:
        return False
    return store.write_behind(
        lambda: store.cache_put(
            key,
            value,
            max_entries=settings.summary_cache_max_entries,
            max_bytes=settings.summary_cache_max_bytes,
        )
    )
