"""Copy everything one store holds into another: SQLite to PostgreSQL and back.

Sources (with their forum topics and sync watermarks), messages, vectors of every
model, API keys, the summary cache, and the digest schedules and alerts (with their runs
and posts: ``delivery_copy``) travel through the ``MessageStore`` protocol,
so any two stores work. The copy is idempotent: messages use the stores' own upsert
rules (a second run changes nothing), vectors replace themselves, keys are matched by
prefix and keep their original created, revoked and last-used times (a later use
recorded in the target is kept), the watermark never moves backwards, and a cache
entry is written only when the target lacks it or holds an older one. Store ids may
differ between the two: sources are matched by their internal id or handle, and
summary cache keys name a source by its canonical reference, not its store id.

Text is cleaned on the way (``toolkit.controls``), as an import cleans it: an older
SQLite store may hold NUL or other control characters that PostgreSQL refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import islice

from toolkit.controls import clean_message, clean_optional, clean_text
from toolkit.models import Message, NewApiKey, SourceStats, UpsertResult
from toolkit.store.base import CacheStore, KeyStore, MessageStore
from toolkit.store.rows import source_fields

Progress = Callable[[str, int], None]
"""``progress(source key, messages copied so far)``."""


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What a copy did: per-message outcomes in the target, vectors, keys and cache
    entries written."""

    sources: int
    messages: UpsertResult
    vectors: int
    keys_added: int
    keys_revoked: int
    cache_written: int = 0
    schedules: int = 0
    """Schedules new to the target (a copy again finds them there)."""
    alerts: int = 0
    """Alerts new to the target."""


def _copy_batch(
    src: MessageStore, dst: MessageStore, messages: list[Message], new_id: int, models: list[str]
) -> tuple[UpsertResult, int]:
    """One batch of messages and their vectors, in one target transaction."""
    ids = [m.messenger_message_id for m in messages]
    written = 0
    with dst.transaction():
        result = dst.upsert_messages(
            [clean_message(replace(m, source_id=new_id)) for m in messages]
        )
        for model in models:
            found = src.get_vectors(messages[0].source_id, ids, model)
            written += dst.put_vectors(new_id, model, found.items())
    return result, written


def _copy_source(
    src: MessageStore,
    dst: MessageStore,
    stats: SourceStats,
    *,
    batch_size: int,
    progress: Progress | None,
) -> tuple[UpsertResult, int, int]:
    """One source with its messages, vectors, topics and watermark; what was written and
    the source's id in ``dst``."""
    old = stats.source
    fields = source_fields(old)
    fields["title"], fields["chat_type"] = clean_text(old.title), clean_optional(old.chat_type)
    new = dst.upsert_source(**fields)
    models = src.vector_models(old.id)
    result, vectors = UpsertResult(), 0
    batch: list[Message] = []
    for message in src.iter_messages(old.id, batch_size=batch_size):
        batch.append(message)
        if len(batch) < batch_size:
            continue
        done, written = _copy_batch(src, dst, batch, new.id, models)
        result, vectors, batch = result + done, vectors + written, []
        if progress is not None:
            progress(old.key, result.inserted + result.updated + result.unchanged)
    if batch:
        done, written = _copy_batch(src, dst, batch, new.id, models)
        result, vectors = result + done, vectors + written
    topics = [(t.topic_id, clean_text(t.title)) for t in stats.topics]
    if topics:
        dst.upsert_topics(new.id, topics)
    watermark = src.get_watermark(old.id)
    if watermark is not None and stats.last_synced_at is not None:
        dst.set_watermark(new.id, watermark, stats.last_synced_at)
    return result, vectors, new.id


def _copy_keys(src: KeyStore, dst: KeyStore) -> tuple[int, int]:
    """Keys by prefix, with their original times; returns (added, revoked) in ``dst``."""
    added = revoked = 0
    for record in src.list_api_keys():
        found = src.api_key_by_prefix(record.prefix)
        if found is None:
            continue
        there = dst.api_key_by_prefix(record.prefix)
        if there is None:
            draft = NewApiKey(
                name=clean_text(record.name),
                prefix=record.prefix,
                key_hash=found[1],
                scopes=record.scopes,
                created_at=record.created_at,
            )
            target = dst.add_api_key(draft)
            added += 1
        else:
            target = there[0]
        if record.revoked_at is not None and target.active:
            dst.revoke_api_key(str(target.id), at=record.revoked_at)
            revoked += 1
        used = record.last_used_at
        if used is not None and (target.last_used_at is None or target.last_used_at < used):
            dst.touch_api_key(target.id, used)
    return added, revoked


def _copy_cache(src: CacheStore, dst: CacheStore, *, batch_size: int) -> int:
    """Cache entries ``dst`` lacks or holds older versions of; returns how many were written."""
    entries, written = src.iter_cache(batch_size=batch_size), 0
    while batch := list(islice(entries, batch_size)):
        written += dst.merge_cache(batch)
    return written


def copy_store(
    src: MessageStore,
    dst: MessageStore,
    *,
    batch_size: int = 2000,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy sources, messages, topics, vectors, watermarks, API keys, the summary cache,
    schedules and alerts from ``src`` to ``dst``.

    Args:
        src: the store to read.
        dst: the store to write (created tables are migrated on open).
        batch_size: messages (and cache entries) per target transaction.
        progress: called after each batch.

    Returns:
        What the copy inserted, updated, wrote or found unchanged in ``dst``.
    """
    total, vectors = UpsertResult(), 0
    listed = src.list_sources()
    sources: dict[int, int] = {}
    for stats in listed:
        result, written, new_id = _copy_source(
            src, dst, stats, batch_size=batch_size, progress=progress
        )
        total += result
        vectors += written
        sources[stats.source.id] = new_id
    added, revoked = _copy_keys(src, dst)
    cached = _copy_cache(src, dst, batch_size=batch_size)
    delivery = dst.delivery_merge(src.delivery_dump(), sources)
    return CopyReport(
        len(listed), total, vectors, added, revoked, cached, delivery.schedules, delivery.alerts
    )
