"""The ``MessageStore`` protocol: everything the toolkit asks of a message store, as the
union of small protocols by what a caller uses (``Writes``, ``SourceStore``,
``MessageReader``, ``MessageWriter``, ``VectorStore``, ``KeyStore``, ``CacheStore``,
``ScheduleStore``, ``AlertStore``, ``PostStore``, ``DeliveryCopies``, ``HealthCheck``),
and ``RateBuckets``, a part only some stores have.

``SQLStore`` (``store.py``) implements it once for every SQL backend, over a dialect:
SQLite (``sqlite.py``) is the embedded default, PostgreSQL (``postgres.py``) serves
several service replicas. Methods that return messages return them in posting order
(``posted_at``, then message id), oldest first.

Forum topics and senders (schema migration ``m005_topics_senders``):

- ``Message.topic_id`` is stored with each message (``None`` outside forums) and
  ``Source.chat_type`` with each source (it decides whether messages have links);
  ``m009_message_reactions`` adds each message's reactions, views and forwards, and
  ``m010_source_timezone`` each source's own time zone (``Source.timezone``) and
  ``m012_source_timezone_origin`` where it comes from (``Source.timezone_origin``);
- ``upsert_topics``/``list_topics`` keep each topic's title; once a source has topics,
  its messages without one belong to General (id 1);
- the message readers (``count_messages``, ``count_senders``, ``messages_in_period``,
  ``recent_messages``, ``message_outline``, ``scan_window``) take one
  ``toolkit.models.MessageFilter`` (period, topic, senders, service messages, text),
  applied BEFORE any ``limit`` so that "the 200 most recent messages of this person"
  means exactly that; ``sender_peer_ids=()`` matches nothing, ``None`` does not filter;
- ``messages_without_vectors(newest_first=True)`` lets an import embed the newest
  messages (a default search's window) first.

Concurrency (issue 11), what every store promises:

- reads never wait for a writer, and read paths never write: a write a read path
  wants (a lazily computed vector, a key's last-used stamp) goes to ``write_behind``,
  which may drop it when the writer is busy;
- an import writes through ``staging()``: an ``ImportSink`` whose writes all land
  together when the block ends cleanly, and not at all when it raises, without holding
  the store's write lock while the file is read; imports take turns;
- ``transaction()`` writes queue behind other writers instead of failing.

A store where a long transaction blocks nobody (PostgreSQL) may implement ``staging``
as ``with self.transaction(): yield DirectSink(self)`` and ``write_behind`` with a
``background.BackgroundWriter``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol, Unpack, runtime_checkable

import numpy as np
import numpy.typing as npt

from toolkit.models import (
    ApiKeyRecord,
    CacheEntry,
    Message,
    MessageFilter,
    NewApiKey,
    Source,
    SourceRef,
    SourceStats,
    TopicStats,
    UpsertResult,
    Walk,
    ZoneOrigin,
)
from toolkit.store.alert_rows import AlertClaim, AlertRecord, NewAlert, NewMessages, PostRecord
from toolkit.store.delivery_copy import DeliveryCopied, DeliveryDump
from toolkit.store.rows import CacheBounds, SourceFields
from toolkit.store.schedule_rows import (
    NewSchedule,
    Outcome,
    PeriodClaim,
    ResultRecord,
    RunChanges,
    RunRecord,
    ScheduleRecord,
)

Vector = npt.NDArray[np.float32]


class ImportSink(Protocol):
    """Where an import writes: sources, messages and topics that land together."""

    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """As ``MessageStore.upsert_source``; a new source may get a provisional id."""
        ...

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """As ``MessageStore.upsert_messages`` (``source_id`` as ``upsert_source`` gave it)."""
        ...

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """As ``MessageStore.upsert_topics`` (``source_id`` as ``upsert_source`` gave it)."""
        ...

    def final(self, source: Source) -> Source:
        """The stored source that ``source`` became once the import landed."""
        ...


class DirectSink:
    """An ``ImportSink`` writing straight to a store (inside the caller's transaction)."""

    def __init__(self, store: MessageStore) -> None:
        self._store = store

    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """Create or update the source in the store."""
        return self._store.upsert_source(**fields)

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Upsert the messages into the store."""
        return self._store.upsert_messages(messages)

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record the topics in the store."""
        self._store.upsert_topics(source_id, topics)

    def final(self, source: Source) -> Source:
        """The source itself: its id is already the stored one."""
        return source


class Writes(Protocol):
    """How a store takes writes: transactions, an import's staging, small writes off the
    caller's path (``write_behind``), and its end (``close``)."""

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction: everything inside commits together or not at all."""
        ...

    def staging(
        self, *, on_wait: Callable[[str], None] | None = None
    ) -> AbstractContextManager[ImportSink]:
        """An import's sink: all of it lands on a clean exit, nothing on an error.

        Imports into one store take turns; one that must wait calls ``on_wait`` once
        with a line to show (``"waiting for another import to finish…"``).
        """
        ...

    def write_behind(self, task: Callable[[], object]) -> bool:
        """Run a small write off the caller's path; ``False`` when it was dropped."""
        ...

    def flush_writes(self, timeout: float = 10.0) -> bool:
        """Wait for the writes given to ``write_behind``; ``False`` on timeout."""
        ...

    def close(self) -> None:
        """Release the underlying connection."""
        ...


class SourceStore(Protocol):
    """Sources: look-ups by reference, upserts, time zones and per-source stats."""

    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """Create or update a source found by internal id or handle; return it.

        ``chat_type`` (the export's type name) and ``timezone`` are kept when a later
        call gives ``None``.
        """
        ...

    def set_source_timezone(
        self, source_id: int, timezone: str | None, origin: ZoneOrigin | None = "set"
    ) -> Source:
        """Record a source's own time zone (``None`` forgets it) and where it comes from
        (``Source.timezone_origin``); return the source."""
        ...

    def get_source(self, ref: SourceRef) -> Source:
        """The source a reference names; ``SourceNotFound`` when the store has none."""
        ...

    def find_source(self, ref: SourceRef) -> Source | None:
        """The source a reference names, or ``None``."""
        ...

    def list_sources(self) -> list[SourceStats]:
        """Every source with its counts, time span, last sync and topics."""
        ...

    def source_stats(self, source_id: int) -> SourceStats:
        """One source's counts (service messages excluded), time span, last sync, topics."""
        ...


class MessageReader(Protocol):
    """Reading a source's messages: periods, windows, neighbours, outlines, topics and
    the searchable rows an index is built from."""

    def count_messages(self, source_id: int, filter: MessageFilter = MessageFilter()) -> int:
        """How many of a source's messages ``filter`` takes."""
        ...

    def count_senders(self, source_id: int, filter: MessageFilter = MessageFilter()) -> int:
        """How many people (or channels) wrote the messages ``filter`` takes."""
        ...

    def messages_in_period(
        self, source_id: int, filter: MessageFilter = MessageFilter(), *, limit: int | None = None
    ) -> list[Message]:
        """The messages ``filter`` takes, oldest first (the oldest ``limit`` when given)."""
        ...

    def recent_messages(
        self, source_id: int, limit: int, filter: MessageFilter = MessageFilter()
    ) -> list[Message]:
        """The most recent ``limit`` messages ``filter`` takes, oldest first."""
        ...

    def message_outline(
        self, source_id: int, filter: MessageFilter = MessageFilter()
    ) -> list[tuple[int, int, int]]:
        """Every searchable message (text, not service) ``filter`` takes, in posting
        order, as ``(message id, posted_at in Unix seconds, characters of text)``: what a
        source summary's sample is drawn from (``toolkit.summarize.sample``), with no text
        read."""
        ...

    def activity_hours(self, source_id: int) -> tuple[tuple[int, ...], int]:
        """When a source's people write: for each hour of the day in UTC (0..23), how
        many (sender, hour) slots hold a message of theirs, and on how many days anyone
        wrote (service messages excluded). A burst of one person's messages counts
        once; what ``toolkit.zones`` infers the source's time zone from."""
        ...

    def neighbours_of(
        self, source_id: int, message_ids: Sequence[int], walk: Walk = Walk()
    ) -> dict[int, tuple[list[Message], list[Message]]]:
        """The non-service messages around each of ``message_ids``, older and newer, in
        posting order, as far as ``walk`` goes (``Walk``: by default 2 each side, within
        the message's forum topic). One statement per call, not per message (a search's
        hits; each walk uses ``messages_by_topic`` or ``messages_by_time``); every id
        gets an entry, ``([], [])`` if unknown."""
        ...

    def get_messages(self, source_id: int, message_ids: Sequence[int]) -> list[Message]:
        """The messages with these ids, in posting order; unknown ids are skipped."""
        ...

    def iter_messages(self, source_id: int, *, batch_size: int = 1000) -> Iterator[Message]:
        """Every message of a source in posting order, fetched in batches."""
        ...

    def list_topics(self, source_id: int) -> list[TopicStats]:
        """A forum's topics by id, with non-service message counts; ``[]`` for others."""
        ...

    def index_rows(self, source_id: int) -> list[tuple[int, int, str, int | None, str | None]]:
        """Every searchable message of a source (text, not service), newest first, as
        ``(message id, posted_at in Unix seconds, text, topic id, sender peer id)``."""
        ...

    def source_generation(self, source_id: int) -> int:
        """A counter every write that changes a source's searchable messages (upserts,
        staged imports, topics) raises, in every process: an in-memory index of the
        source is current while it is unchanged. 0 for an unknown source."""
        ...

    def scan_window(
        self, source_id: int, limit: int, filter: MessageFilter = MessageFilter()
    ) -> list[tuple[int, int, str]]:
        """A search's scan window, cheaply: the most recent ``limit`` searchable messages
        (text, not service) ``filter`` takes (the window is taken after its filters),
        newest first, as ``(message id, posted_at in Unix seconds, text)`` tuples."""
        ...


class MessageWriter(Protocol):
    """Writing a source's messages: upserts, forum topics, sync watermarks, generations."""

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Insert new messages; a newer edit replaces text; the same content changes nothing."""
        ...

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record ``(topic id, title)`` pairs (a later title replaces an earlier one).

        The first topic makes the source a forum: General (id 1, titled "General" unless
        given) is added and the source's messages stored without a topic move into it.
        """
        ...

    def get_watermark(self, source_id: int) -> int | None:
        """The highest message id a live sync has committed for a source."""
        ...

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        """Record sync progress (never moves the watermark backwards)."""
        ...

    def bump_generation(self, source_id: int) -> None:
        """Raise ``source_generation`` (writers call it inside their transaction)."""
        ...


class VectorStore(Protocol):
    """Message vectors by embedding model."""

    def get_vectors(
        self, source_id: int, message_ids: Sequence[int], model: str
    ) -> dict[int, Vector]:
        """Stored vectors of ``model`` for these messages (missing ones are absent)."""
        ...

    def put_vectors(self, source_id: int, model: str, vectors: Iterable[tuple[int, Vector]]) -> int:
        """Store vectors of ``model``; return how many were written."""
        ...

    def vector_models(self, source_id: int) -> list[str]:
        """The embedding models a source has stored vectors of, by name."""
        ...

    def messages_without_vectors(
        self, source_id: int, model: str, *, limit: int | None = None, newest_first: bool = False
    ) -> list[Message]:
        """Searchable messages (text, not service) that have no vector of ``model``, in
        posting order, or newest first when ``newest_first``."""
        ...

    def count_without_vectors(self, source_id: int, model: str) -> int:
        """How many searchable messages (text, not service) lack a vector of ``model``."""
        ...


class KeyStore(Protocol):
    """API keys: hashes, scopes, revocation and last use."""

    def add_api_key(self, key: NewApiKey) -> ApiKeyRecord:
        """Store a new key's hash and scopes, created now unless ``key.created_at`` is set."""
        ...

    def api_key_by_prefix(self, prefix: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record with this prefix and its stored hash, or ``None``."""
        ...

    def api_key_by_hash(self, key_hash: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record whose stored hash is ``key_hash`` and that hash, or ``None``."""
        ...

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, revoked ones included."""
        ...

    def revoke_api_key(self, id_or_prefix: str, *, at: datetime | None = None) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix, now unless ``at`` is given (a revoked key
        keeps its first revocation time); ``ApiKeyNotFound`` when none matches."""
        ...

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record a key's last use."""
        ...


class CacheStore(Protocol):
    """The result cache (summaries), bounded, least recently used first out."""

    def cache_get(self, key: str) -> str | None:
        """A cached value, or ``None`` (a read only: ``cache_touch`` records the use)."""
        ...

    def cache_touch(self, key: str, when: datetime | None = None) -> None:
        """Record a use of a cached entry (a write: call it through ``write_behind``)."""
        ...

    def cache_put(self, key: str, value: str, **bounds: Unpack[CacheBounds]) -> int:
        """Store a cached value (replacing any old one), then remove the least recently
        used entries past ``max_entries`` or ``max_bytes``; return how many went."""
        ...

    def iter_cache(self, *, batch_size: int = 500) -> Iterator[CacheEntry]:
        """Every cached entry, by key, fetched in batches."""
        ...

    def merge_cache(self, entries: Iterable[CacheEntry]) -> int:
        """Store entries this store lacks or holds an older version of, keeping their
        ``created_at``, in one transaction; return how many were written."""
        ...


class Ledger(Protocol):
    """Leased records (a schedule's runs, an alert's posts) and what each destination of
    one came to: what the delivery steps (``toolkit.delivery.run``) write."""

    def update_run(
        self, run_id: int, *, owner: str, lease_until: datetime, **changes: Unpack[RunChanges]
    ) -> bool:
        """Write the lease and state if ``owner`` still holds it; whether it did."""
        ...

    def set_result(self, run_id: int, destination: int, **outcome: Unpack[Outcome]) -> None:
        """Record what a destination of a record came to."""
        ...

    def results(self, run_ids: Sequence[int]) -> list[ResultRecord]:
        """The destinations' results of these records, by record and destination."""
        ...

    def resend_uncertain(self, parent_id: int, *, now: datetime) -> list[int]:
        """Mark the ``uncertain`` destinations of a schedule's runs (of an alert's posts)
        to be sent again and open their records to the next pass at once; the records."""
        ...


class ScheduleStore(Ledger, Protocol):
    """Digest schedules, the runs that lease their periods, each destination's result
    (``schedules.Schedules``; ``toolkit.delivery`` is their meaning)."""

    def add_schedule(self, new: NewSchedule) -> ScheduleRecord:
        """Store a schedule; return it with its id."""
        ...

    def list_schedules(self) -> list[ScheduleRecord]:
        """Every schedule, oldest first."""
        ...

    def get_schedule(self, schedule_id: int) -> ScheduleRecord | None:
        """One schedule, or ``None``."""
        ...

    def remove_schedule(self, schedule_id: int) -> bool:
        """Remove a schedule with its runs; whether there was one."""
        ...

    def claim_period(self, schedule_id: int, **claim: Unpack[PeriodClaim]) -> RunRecord | None:
        """Lease ``[start, end)`` for ``owner`` if ``covered_until`` is still the
        schedule's; the new run, or ``None`` when another worker claimed first."""
        ...

    def take_over_run(
        self, run_id: int, *, owner: str, lease_until: datetime, now: datetime
    ) -> RunRecord | None:
        """Lease an unfinished run whose lease ran out; ``None`` when another has it."""
        ...

    def open_runs(self, now: datetime) -> list[RunRecord]:
        """Unfinished runs whose lease has run out, oldest first."""
        ...

    def runs(self, schedule_id: int, *, limit: int = 20) -> list[RunRecord]:
        """A schedule's latest runs, newest period first."""
        ...


class AlertStore(Protocol):
    """Alerts, their posts (leased like runs) and each destination's result
    (``alerts.Alerts``; ``toolkit.delivery.alerts`` is their meaning)."""

    def add_alert(self, new: NewAlert) -> AlertRecord:
        """Store an alert; return it with its id."""
        ...

    def list_alerts(self) -> list[AlertRecord]:
        """Every alert, oldest first."""
        ...

    def get_alert(self, alert_id: int) -> AlertRecord | None:
        """One alert, or ``None``."""
        ...

    def remove_alert(self, alert_id: int) -> bool:
        """Remove an alert with its posts; whether there was one."""
        ...

    def last_message_ids(self) -> dict[int, int]:
        """Per source id, its highest message id."""
        ...

    def messages_after(self, source_id: int, message_id: int) -> NewMessages:
        """A source's messages with an id above ``message_id``: how many, the highest id,
        the earliest posting time, the window from then on."""
        ...

    def claim_alert(self, alert_id: int, **claim: Unpack[AlertClaim]) -> list[PostRecord] | None:
        """Move the alert on from ``version`` and lease its new posts; ``None`` when
        another worker moved it first."""
        ...

    def posts_since(self, alert_id: int, since: datetime) -> int:
        """How many posts an alert claimed at or after ``since``."""
        ...


class PostStore(Protocol):
    """An alert's posts, leased like runs, and each destination's result
    (``alerts.Alerts``)."""

    def recent_posts(self, alert_id: int, *, limit: int = 20) -> list[PostRecord]:
        """An alert's latest posts, newest first."""
        ...

    def get_post(self, post_id: int) -> PostRecord | None:
        """One post, or ``None``."""
        ...

    def open_posts(self, now: datetime) -> list[PostRecord]:
        """Unfinished posts whose lease has run out, oldest first."""
        ...

    def take_over_post(
        self, post_id: int, *, owner: str, lease_until: datetime, now: datetime
    ) -> PostRecord | None:
        """Lease an unfinished post whose lease ran out; ``None`` when another has it."""
        ...

    def post_ledger(self) -> Ledger:
        """The ledger of posts: their leases and each destination's result."""
        ...


class DeliveryCopies(Protocol):
    """Schedules and alerts as rows, out of one store and into another (``copy_store``;
    ``delivery_copy.DeliveryRows``)."""

    def delivery_dump(self) -> DeliveryDump:
        """Every schedule, run, alert, post and result of the store."""
        ...

    def delivery_merge(self, dump: DeliveryDump, sources: Mapping[int, int]) -> DeliveryCopied:
        """Merge a dump of another store, its source ids mapped to this store's."""
        ...


class HealthCheck(Protocol):
    """A store that can say, in bounded time, whether it answers."""

    def check_health(self, budget_s: float) -> None:
        """Ask the database something cheap (an integrity check where it fits in
        ``budget_s``); ``StoreError`` when it cannot answer, ``StoreDamaged`` while its
        file is known to be corrupted."""
        ...


class MessageStore(
    Writes,
    SourceStore,
    MessageReader,
    MessageWriter,
    VectorStore,
    KeyStore,
    CacheStore,
    ScheduleStore,
    AlertStore,
    PostStore,
    DeliveryCopies,
    HealthCheck,
    Protocol,
):
    """Storage of sources, messages, vectors, API keys and cached results: the union of
    the small protocols above, which callers that need less are typed by (an API key
    check needs a ``KeyStore``, the embedder a ``VectorStore``, a live sync's batches
    ``Writes`` with a ``MessageWriter``, the delivery runner a ``ScheduleStore``)."""


@runtime_checkable
class RateBuckets(Protocol):
    """An optional part of a store: token buckets every process using it shares
    (PostgreSQL). The service checks for it (``isinstance``) and keeps buckets in
    process when the store has none."""

    def take_rate_token(self, key: str, *, per_minute: float, burst: int) -> float | None:
        """Take a token of ``key``: ``None`` when admitted, else seconds until one is back."""
        ...
