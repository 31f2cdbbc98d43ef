"""Incremental live sync of one source into the store.

The sync reads the source's watermark (the highest message id committed by an earlier
sync), streams newer messages oldest first, and commits them in batches: each batch's
messages and the watermark move together in one store transaction, so a sync stopped
anywhere resumes from the last committed batch with no gap and no duplicate.

FloodWait (``RateLimited`` from the client) is honoured: a wait up to
``flood_sleep_threshold`` seconds is slept and the stream resumes from the last
committed id; a longer one commits what has arrived and re-raises ``RateLimited`` with
its ``retry_after``, so the caller (CLI, service) can tell the user when to come back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NotRequired, Protocol, TypedDict, TypeVar, Unpack

from tqdm import tqdm

from toolkit.errors import InvalidRequest, RateLimited, UpstreamError
from toolkit.ingest.live.client import CommentsClient, MessengerClient, ResolvedSource
from toolkit.ingest.live.counters import checked_counters, counter_notes
from toolkit.models import Message, Source, SourceRef, SyncReport, UpsertResult
from toolkit.store.base import MessageStore, MessageWriter, Writes
from toolkit.store.rows import source_fields
from toolkit.zones import settle_zone

Sleep = Callable[[float], Awaitable[object]]
OnBatch = Callable[[int, list[Message]], None]


class BatchStore(Writes, MessageWriter, Protocol):
    """What a sync's batches are committed through: a transaction, the messages, topics
    and watermark."""


class _Batcher:
    """Collects streamed messages and commits them, batch by batch, with the watermark."""

    def __init__(
        self,
        store: BatchStore,
        source: Source,
        on_batch: OnBatch | None,
        bar: tqdm,
        topics: dict[int, str] | None = None,
    ) -> None:
        self.store, self.source, self.on_batch, self.bar = store, source, on_batch, bar
        # The client fills in topic titles as it streams; each commit records them.
        self.topics = topics if topics is not None else {}
        self.pending: list[Message] = []
        self.result = UpsertResult()
        self.fetched = 0
        self.batches = 0
        self.last_id: int | None = None
        self.bad_counters = 0
        """Messages whose views or forwards were negative or too big: stored as unknown."""

    def add(self, message: Message, batch_size: int) -> None:
        checked = checked_counters(message)
        if checked is not message:
            self.bad_counters += 1
        self.pending.append(checked)
        self.fetched += 1
        self.bar.update(1)
        if len(self.pending) >= batch_size:
            self.commit()

    def commit(self) -> None:
        if not self.pending:
            return
        batch = self.pending
        top = max(m.messenger_message_id for m in batch)
        with self.store.transaction():
            result = self.store.upsert_messages(batch)
            if self.topics:
                self.store.upsert_topics(self.source.id, self.topics.items())
            self.store.set_watermark(self.source.id, top, datetime.now(UTC))
        self.pending = []
        self.result += result
        self.batches += 1
        self.last_id = top if self.last_id is None else max(self.last_id, top)
        if self.on_batch is not None:
            self.on_batch(self.source.id, batch)


_T = TypeVar("_T")


@dataclass(slots=True)
class _FloodWaits:
    """The FloodWaits one sync sleeps: each up to ``threshold`` seconds, at most ``most``
    of them; a longer one, or one more, is the caller's to raise."""

    threshold: float
    most: int
    sleep: Sleep
    count: int = 0
    slept: float = 0.0

    def allows(self, exc: RateLimited) -> bool:
        """Whether this wait is one to sleep (short enough, and not one too many)."""
        return exc.retry_after <= self.threshold and self.count < self.most

    async def wait(self, exc: RateLimited) -> None:
        """Sleep the wait out and count it."""
        self.count += 1
        self.slept += exc.retry_after
        await self.sleep(exc.retry_after)


async def _retry_once(call: Callable[[], Awaitable[_T]], threshold: float, sleep: Sleep) -> _T:
    """``call()``, and once more after a FloodWait up to ``threshold`` seconds (resolving
    a handle or a group is rate-limited hard: one short wait is slept, a longer raised)."""
    try:
        return await call()
    except RateLimited as exc:
        if exc.retry_after > threshold:
            raise
        await sleep(exc.retry_after)
    return await call()


@dataclass(frozen=True, slots=True)
class _Options:
    """How one sync fetches, for the source's messages and its comments alike."""

    batch_size: int
    flood_sleep_threshold: float
    max_flood_waits: int
    sleep: Sleep
    on_batch: OnBatch | None


async def sync_source(
    store: MessageStore,
    client: MessengerClient,
    ref: SourceRef,
    *,
    batch_size: int,
    flood_sleep_threshold: float,
    progress: bool = False,
    sleep: Sleep = asyncio.sleep,
    on_batch: OnBatch | None = None,
    full: bool = False,
    limit: int | None = None,
    max_flood_waits: int = 20,
    with_comments: bool = False,
) -> SyncReport:
    """Fetch a source's new messages oldest first and commit them in batches.

    Args:
        store: where the messages go; the source is created or updated in it.
        client: a connected ``MessengerClient``.
        ref: the source to sync.
        batch_size: messages per commit (each commit also moves the watermark).
        flood_sleep_threshold: FloodWaits up to this many seconds are slept, longer raise.
        progress: show a tqdm progress bar on stderr.
        sleep: how to wait out a FloodWait (injectable for tests).
        on_batch: called with the source id and each committed batch (e.g. to embed it).
        full: refetch from the first message, picking up edits of old messages.
        limit: fetch at most this many messages in this run (the rest on the next run).
        max_flood_waits: give up with ``RateLimited`` after sleeping this many FloodWaits.
        with_comments: for a channel with a discussion group, also store the comments of
            each post this run fetched, as messages of the group (its own source; the
            group's copy of the post first, the comments replying to it), so that search
            and summaries can read them. Nothing happens for any other source.

    Returns:
        A ``SyncReport``.

    Raises:
        RateLimited: a FloodWait longer than the threshold (committed messages stay).
        SourceNotFound: the messenger has no such source.
        UpstreamError: the messenger failed; what arrived before is committed.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if with_comments and not callable(getattr(client, "iter_comments", None)):
        raise InvalidRequest("this messenger client cannot read comments", field="with_comments")
    resolved = await _retry_once(lambda: client.resolve(ref), flood_sleep_threshold, sleep)
    source = store.upsert_source(**source_fields(resolved))
    watermark_before = store.get_watermark(source.id)
    options = _Options(batch_size, flood_sleep_threshold, max_flood_waits, sleep, on_batch)
    waits = _FloodWaits(flood_sleep_threshold, max_flood_waits, sleep)
    with tqdm(total=limit, unit="msg", desc=source.title, disable=not progress) as bar:
        batcher = _Batcher(store, source, on_batch, bar, resolved.topics)
        cursor = 0 if full else (watermark_before or 0)
        await _fetch(client, resolved, batcher, cursor, limit, options, waits)
    discussion, comments = None, None
    if with_comments and resolved.commented:
        discussion, comments = await _sync_comments(
            store,
            client,  # type: ignore[arg-type]
            resolved,
            options,
        )
    # The messenger tells no zone: the source's people do, over all its stored messages.
    source = settle_zone(store, source)
    discussion = settle_zone(store, discussion) if discussion is not None else None
    return SyncReport(
        source=source,
        fetched=batcher.fetched,
        result=batcher.result,
        batches=batcher.batches,
        flood_waits=waits.count,
        slept_seconds=waits.slept,
        watermark_before=watermark_before,
        watermark_after=store.get_watermark(source.id),
        comments=comments.fetched if comments is not None else 0,
        discussion=discussion,
        comments_result=comments.result if comments is not None else UpsertResult(),
        notes=counter_notes(source.key, batcher.bad_counters)
        + (
            counter_notes(discussion.key, comments.bad_counters)
            if comments is not None and discussion is not None
            else ()
        ),
    )


async def _fetch(
    client: MessengerClient,
    resolved: ResolvedSource,
    batcher: _Batcher,
    cursor: int,
    limit: int | None,
    options: _Options,
    waits: _FloodWaits,
) -> None:
    """Stream the messages after ``cursor`` (at most ``limit``) into ``batcher``, oldest
    first, sleeping short FloodWaits and resuming from the last committed id."""
    source = batcher.source
    while True:
        remaining = None if limit is None else limit - batcher.fetched
        if remaining is not None and remaining <= 0:
            return
        stream = client.iter_messages(resolved, source_id=source.id, min_id=cursor, limit=remaining)
        try:
            async for message in stream:
                batcher.add(message, options.batch_size)
        except RateLimited as exc:
            # What arrived before the wait is contiguous from the cursor: keep it.
            batcher.commit()
            if not waits.allows(exc):
                limited = type(exc)(
                    f"{exc}; {batcher.fetched} messages of {source.key} were committed, "
                    f"retry in {exc.retry_after:g} s",
                    retry_after=exc.retry_after,
                )
                limited.details.update(source_id=source.id, committed=batcher.fetched)
                raise limited from exc
            await waits.wait(exc)
            cursor = max(cursor, batcher.last_id or 0)
            continue
        except UpstreamError:
            batcher.commit()
            raise
        finally:
            # Close an abandoned stream now, not whenever the garbage collector runs.
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        batcher.commit()
        return


class _CommentBatcher(_Batcher):
    """Commits comments without moving the group's watermark (its own history is not
    synced by reading comments)."""

    def commit(self) -> None:
        if not self.pending:
            return
        batch = self.pending
        with self.store.transaction():
            result = self.store.upsert_messages(batch)
        self.pending = []
        self.result += result
        self.batches += 1
        if self.on_batch is not None:
            self.on_batch(self.source.id, batch)


async def _sync_comments(
    store: MessageStore,
    client: CommentsClient,
    channel: ResolvedSource,
    options: _Options,
) -> tuple[Source, _Batcher]:
    """Store the comments of ``channel.commented`` posts in their discussion group."""
    group_id = next(iter(channel.commented.values()))
    group = await _retry_once(
        lambda: client.resolve_discussion(group_id), options.flood_sleep_threshold, options.sleep
    )
    source = store.upsert_source(**source_fields(group))
    with tqdm(disable=True) as bar:
        batcher = _CommentBatcher(store, source, options.on_batch, bar)
        waits = _FloodWaits(options.flood_sleep_threshold, options.max_flood_waits, options.sleep)
        for post_id in sorted(channel.commented):
            while True:
                before = batcher.fetched
                try:
                    async for message in client.iter_comments(
                        channel, post_id, source_id=source.id
                    ):
                        batcher.add(message, options.batch_size)
                except RateLimited as exc:
                    batcher.commit()
                    if not waits.allows(exc):
                        raise
                    await waits.wait(exc)
                    batcher.fetched = before  # the post's comments come again, upserted once
                    continue
                except UpstreamError:
                    batcher.commit()
                    raise
                break
        batcher.commit()
    return source, batcher


class SyncOptions(TypedDict):
    """The keyword options of ``run_sync`` (as in ``sync_source``)."""

    batch_size: int
    flood_sleep_threshold: float
    progress: NotRequired[bool]
    on_batch: NotRequired[OnBatch | None]
    full: NotRequired[bool]
    limit: NotRequired[int | None]
    with_comments: NotRequired[bool]


def run_sync(
    store: MessageStore,
    client: MessengerClient,
    ref: SourceRef,
    **options: Unpack[SyncOptions],
) -> SyncReport:
    """Connect ``client``, run ``sync_source`` in a fresh event loop, disconnect.

    For synchronous callers (the CLI, notebooks outside a running loop); arguments as in
    ``sync_source``.
    """

    async def _run() -> SyncReport:
        await client.connect()
        try:
            report = await sync_source(store, client, ref, **options)
        except BaseException:
            # The sync's own error is the one to report; a failing goodbye must not hide it.
            with suppress(Exception):
                await client.disconnect()
            raise
        await client.disconnect()
        return report

    return asyncio.run(_run())
