"""Domain types shared by every part of the toolkit.

Plain frozen dataclasses: cheap to build by the ten thousand in a search window,
typed, and free of any HTTP or UI concern. Datetimes are always timezone-aware UTC.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from toolkit.source_kind import SourceKind as SourceKind


def canonical_key(handle: str | None, internal_id: int | None) -> str:
    """The canonical name of a source: ``@handle`` when public, else ``c/<internal id>``."""
    return f"@{handle}" if handle is not None else f"c/{internal_id}"


NO_LINK_CHAT_TYPES = frozenset(
    {"personal_chat", "bot_chat", "saved_messages", "private_group", "replies"}
)
"""Chat types the messenger has no message links for (personal, bot, saved, basic groups)."""
ZoneOrigin = Literal["set", "inferred", "export"]
"""Where a source's time zone comes from: set by the user, inferred from when its people
write, or the exporter's offset; a zone set wins over one inferred, which wins over the
export's."""
ZONE_ORIGINS: tuple[ZoneOrigin, ...] = ("set", "inferred", "export")
"""The origins, the strongest first."""
GENERAL_TOPIC = 1
"""A forum's "General" topic id (its other topics take their ``topic_created`` message's id)."""


Reactions = tuple[tuple[str, int], ...]
"""A message's reactions: ``(key, count)`` pairs, the most given first."""
CUSTOM_REACTION = "custom:"
"""The key prefix of a custom emoji reaction (``custom:<document id>``)."""
PAID_REACTION = "paid"
"""The key of paid (star) reactions."""


def reaction_counts(pairs: Iterable[tuple[str, int]]) -> Reactions:
    """Reactions in their one stored form: a key given twice is counted once with the
    sum of its counts, keys without a positive count are left out, the most given come
    first (ties by key), so that equal reactions always compare equal."""
    totals: dict[str, int] = {}
    for key, count in pairs:
        if key and count > 0:
            totals[key] = totals.get(key, 0) + int(count)
    return tuple(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True, slots=True)
class SourceRef:
    """A parsed source reference: a public handle or a private internal id.

    ``raw`` keeps the reference exactly as given (responses echo it);
    ``message_id`` is set when the reference pointed at one message, ``topic_id`` when
    it pointed into a forum topic (``t.me/<handle>/<topic>/<msg>``).
    """

    raw: str
    handle: str | None = None
    internal_id: int | None = None
    message_id: int | None = None
    topic_id: int | None = None

    @property
    def is_public(self) -> bool:
        """Whether the source is known by a public handle."""
        return self.handle is not None

    @property
    def key(self) -> str:
        """The canonical form: ``@handle`` (lower case) or ``c/<internal id>``."""
        return canonical_key(self.handle, self.internal_id)


@dataclass(frozen=True, slots=True)
class Source:
    """A chat or channel known to the store.

    ``id`` is the store's own key; ``internal_id`` the messenger's numeric id (from an
    export or a live fetch); ``handle`` the public handle in lower case, when public.
    ``chat_type`` is the export's name of the chat's type (``personal_chat``,
    ``bot_chat``, ``saved_messages``, ``private_group``, ``private_supergroup``,
    ``public_supergroup``, ``private_channel``, ``public_channel``); it decides whether
    the messenger has message links for it. ``None`` when unknown (older stores).
    ``timezone`` is the source's own time zone, in which its people speak of "tomorrow
    at 13:40": an IANA name (``Europe/Berlin``) or a fixed offset (``+03:00``), learned
    from an export or set by the user; ``None`` when unknown (read as UTC).
    ``timezone_origin`` says where it comes from (``ZONE_ORIGINS``): ``"set"`` by the
    user (``mlens timezone``), ``"inferred"`` from when its people write, ``"export"``
    the exporter's offset; ``None`` when unknown (no zone, or a store older than this).
    """

    id: int
    title: str
    kind: SourceKind
    handle: str | None = None
    internal_id: int | None = None
    chat_type: str | None = None
    timezone: str | None = None
    timezone_origin: ZoneOrigin | None = None

    @property
    def has_links(self) -> bool:
        """Whether the messenger links to its messages (supergroups and channels only)."""
        return self.chat_type not in NO_LINK_CHAT_TYPES

    @property
    def key(self) -> str:
        """The canonical reference: ``@handle`` when public, else ``c/<internal id>``."""
        return canonical_key(self.handle, self.internal_id)


@dataclass(frozen=True, slots=True)
class TopicStats:
    """A forum topic of a source: its id, title and non-service message count."""

    topic_id: int
    title: str
    message_count: int
    last_message_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SourceStats:
    """A source with its message counts, time span, last sync and forum topics."""

    source: Source
    message_count: int
    first_message_at: datetime | None
    last_message_at: datetime | None
    last_synced_at: datetime | None
    last_synced_message_id: int | None
    topics: tuple[TopicStats, ...] = ()


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a source.

    Service messages (joins, pins, title changes) are kept with ``is_service`` set and
    stay out of search and summaries. ``media`` names the attachment kind of a media
    message (``photo``, ``video_file`` …); its caption is the ``text``, and a media
    message without a caption gets a short text form of what it is (``[sticker] 😀``,
    ``[file] report.pdf``) so that search and summaries see it. ``topic_id`` is the forum
    topic a message belongs to (``None`` outside forums; General is 1).

    The audience's answer: ``reactions`` are ``(key, count)`` pairs, the most given
    first (``reaction_counts``): the emoji itself, ``custom:<document id>`` for a custom
    emoji, ``paid`` for paid (star) reactions; ``()`` when it has none. ``views`` and
    ``forwards`` are what a live sync saw of a channel post (``None`` when unknown:
    exports do not carry them).
    """

    source_id: int
    messenger_message_id: int
    posted_at: datetime
    text: str
    sender_peer_id: str | None = None
    sender_name: str | None = None
    reply_to: int | None = None
    edited_at: datetime | None = None
    is_service: bool = False
    media: str | None = None
    forwarded_from: str | None = None
    topic_id: int | None = None
    reactions: Reactions = ()
    views: int | None = None
    forwards: int | None = None

    @property
    def reaction_count(self) -> int:
        """How many reactions the message got, of every kind together."""
        return sum(count for _, count in self.reactions)


def _slot_setter(name: str) -> Callable[[Message, Any], None]:
    setter: Callable[[Message, Any], None] = getattr(Message, name).__set__
    return setter


_MESSAGE_FIELDS = tuple(f.name for f in fields(Message))
# Each field's slot setter, taken from the class once, in the order of its fields.
_SETTERS = tuple(_slot_setter(name) for name in _MESSAGE_FIELDS)


def build_message(
    source_id: int,
    messenger_message_id: int,
    posted_at: datetime,
    text: str,
    sender_peer_id: str | None,
    sender_name: str | None,
    reply_to: int | None,
    edited_at: datetime | None,
    is_service: bool,
    media: str | None,
    forwarded_from: str | None,
    topic_id: int | None,
    reactions: Reactions,
    views: int | None = None,
    forwards: int | None = None,
) -> Message:
    """``Message(...)`` with every field but ``views`` and ``forwards`` given by position,
    equal to it in every way, at about half the cost: for converters that build one
    message per row of an import (tens of thousands at a time).

    The frozen dataclass's own ``__init__`` looks up and calls ``object.__setattr__``
    for each of its fields; here each field's slot is set through its descriptor's
    setter, taken once. Nothing is checked or converted, as ``__init__`` checks nothing.
    """
    message: Message = object.__new__(Message)
    (
        set_source_id,
        set_messenger_message_id,
        set_posted_at,
        set_text,
        set_sender_peer_id,
        set_sender_name,
        set_reply_to,
        set_edited_at,
        set_is_service,
        set_media,
        set_forwarded_from,
        set_topic_id,
        set_reactions,
        set_views,
        set_forwards,
    ) = _SETTERS
    set_source_id(message, source_id)
    set_messenger_message_id(message, messenger_message_id)
    set_posted_at(message, posted_at)
    set_text(message, text)
    set_sender_peer_id(message, sender_peer_id)
    set_sender_name(message, sender_name)
    set_reply_to(message, reply_to)
    set_edited_at(message, edited_at)
    set_is_service(message, is_service)
    set_media(message, media)
    set_forwarded_from(message, forwarded_from)
    set_topic_id(message, topic_id)
    set_reactions(message, reactions)
    set_views(message, views)
    set_forwards(message, forwards)
    return message


@dataclass(frozen=True, slots=True)
class Walk:
    """How far a walk from a message goes (``neighbours_of``, a hit's context): ``before``
    older and ``after`` newer non-service messages, within the message's forum topic when
    ``same_topic`` (a message with no topic walks among the messages with none, i.e. the
    whole source of a chat that is not a forum)."""

    before: int = 2
    after: int = 2
    same_topic: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageFilter:
    """Which of a source's messages a store read takes (``MessageReader``'s methods).

    ``MessageFilter()`` takes every message but service ones. The store keeps whole
    seconds, and a bound with a fraction is rounded so as to take nothing outside it
    (``since=12:03:00.5`` does not take a message of 12:03:00). Times are kept in UTC
    (a naive one is taken as UTC); senders as a tuple without repeats.

    Attributes:
        since: posted at or after this moment (``None``: no lower bound).
        until: posted at or before this moment (a search's ``period_to``).
        before: posted before this moment (a period summary's ``ended_at``).
        topic_id: of this forum topic only (General is 1).
        sender_peer_ids: of these senders only; ``()`` matches nothing, ``None`` does
            not filter.
        include_service: service messages (joins, pins …) too.
        with_text_only: only messages with text.
    """

    since: datetime | None = None
    until: datetime | None = None
    before: datetime | None = None
    topic_id: int | None = None
    sender_peer_ids: Sequence[str] | None = None
    include_service: bool = False
    with_text_only: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "since", None if self.since is None else utc(self.since))
        object.__setattr__(self, "until", None if self.until is None else utc(self.until))
        object.__setattr__(self, "before", None if self.before is None else utc(self.before))
        senders = self.sender_peer_ids
        if senders is not None:
            one = isinstance(senders, str)  # one sender, not a sequence of letters
            unique = tuple(dict.fromkeys([senders] if one else senders))
            object.__setattr__(self, "sender_peer_ids", unique)

    @property
    def narrows(self) -> bool:
        """Whether it takes only some messages by time, topic or sender."""
        bounds = (self.since, self.until, self.before, self.topic_id, self.sender_peer_ids)
        return any(b is not None for b in bounds)

    def searchable(self) -> MessageFilter:
        """The same filter over searchable messages only: with text, no service one."""
        return replace(self, include_service=False, with_text_only=True)


@dataclass(frozen=True, slots=True)
class UpsertResult:
    """What an upsert changed: new rows, rows whose content changed, rows left as they were;
    and how many stored messages came again with another posting time (theirs was kept)."""

    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    times_kept: int = 0

    def __add__(self, other: UpsertResult) -> UpsertResult:
        return UpsertResult(
            self.inserted + other.inserted,
            self.updated + other.updated,
            self.unchanged + other.unchanged,
            self.times_kept + other.times_kept,
        )


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one live sync did (``toolkit.ingest.live.sync``): messages fetched and committed,
    batches, FloodWaits slept."""

    source: Source
    fetched: int
    result: UpsertResult
    batches: int
    flood_waits: int
    slept_seconds: float
    watermark_before: int | None
    watermark_after: int | None
    comments: int = 0
    """Messages fetched from the discussion group (``with_comments``): posts' copies and
    their comments."""
    discussion: Source | None = None
    """The channel's discussion group, when comments were read into it."""
    comments_result: UpsertResult = field(default_factory=UpsertResult)
    notes: tuple[str, ...] = ()
    """What was changed on the way in (view or forward counts no message can have)."""


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """An API key as stored: its public id and prefix, scopes, and state; never the secret."""

    id: int
    name: str
    prefix: str
    scopes: frozenset[str]
    created_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None

    @property
    def active(self) -> bool:
        """Whether the key may still be used."""
        return self.revoked_at is None


@dataclass(frozen=True, slots=True, kw_only=True)
class NewApiKey:
    """A key to store (``KeyStore.add_api_key``): its hash, never the secret.

    Attributes:
        name: what the key is for, as its owner named it.
        prefix: the key's public prefix (``mlk_1a2b3c4d``), by which it is found.
        key_hash: the stored hash of the whole key.
        scopes: what the key may do (kept as a frozenset).
        created_at: when it was made; ``None``: when it is stored.
    """

    name: str
    prefix: str
    key_hash: str
    scopes: Iterable[str]
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", frozenset(self.scopes))


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached result as stored: its key, value and when it was stored."""

    key: str
    value: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ContextMessage:
    """A neighbour of a search hit, as the contract shows it, with its reactions
    (``{key: count}``, the most given first; empty when it has none)."""

    messenger_message_id: str
    text: str
    sender_peer_id: str
    posted_at: datetime
    message_link: str
    reactions: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A ranked message with its context; ``signals`` explain the score when asked;
    ``reactions`` are the message's (``{key: count}``, empty when it has none)."""

    source_ref: str
    messenger_message_id: str
    source_title: str
    text: str
    message_link: str
    posted_at: datetime
    score: float
    context_before: list[ContextMessage] = field(default_factory=list)
    context_after: list[ContextMessage] = field(default_factory=list)
    signals: dict[str, float] | None = None
    reactions: dict[str, int] = field(default_factory=dict)


class Hits(list[SearchHit]):
    """A search's hits, best first, with how much of its scan window was embedded.

    A list of ``SearchHit`` like any other; ``scanned`` is the size of the scan window,
    ``embedded`` how many of its messages had a vector. They differ only while a
    background embedding is still at work: the others were ranked by their lexical
    signals alone (``toolkit.search.scorer.fuse``).
    """

    __slots__ = ("embedded", "scanned")

    def __init__(
        self, hits: Iterable[SearchHit] = (), *, scanned: int = 0, embedded: int = 0
    ) -> None:
        super().__init__(hits)
        self.scanned = scanned
        self.embedded = embedded


class SectionKind(StrEnum):
    """What a section of a digest holds: one of its functions, or one thread."""

    DECISIONS = "decisions"
    OPEN_QUESTIONS = "open_questions"
    PLANS = "plans"
    LINKS = "links"
    THREAD = "thread"


@dataclass(frozen=True, slots=True)
class SectionItem:
    """One line of a section and the messages it rests on (ids, the cited first)."""

    text: str
    messenger_message_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Section:
    """One titled section of a summary: its text, and (when the engine knows them) its
    kind and its items, each with the message ids it rests on."""

    title: str
    body: str
    kind: SectionKind = SectionKind.THREAD
    items: tuple[SectionItem, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary in the contract's shape, plus the engine that wrote it."""

    source_ref: str
    summary: str
    sections: list[Section]
    important_messenger_message_ids: list[str]
    engine: str = "extractive"
    language: str = "en"
    messages_without_vector: int = 0
    """How many of its messages had no stored embedding yet (right after an import): the
    summary did not wait for them; the extractive engine then read the window's words."""
    sampled: tuple[int, int] | None = None
    """``(read, of)`` when the summary read a sample of its messages: a source summary's
    spread over the source's life, or a window larger than the engine's budget (an LLM's
    ``MLENS_LLM_MAX_PROMPT_TOKENS``); ``None`` when it read them all."""
    items_kept: int = 0
    """LLM engine: the model's items (section lines) that passed the grounding check
    (``toolkit.summarize.llm.grounding``): each cites messages of the window, and every
    number, date, time, @handle and link host it names is in the messages it cites."""
    items_dropped: int = 0
    """LLM engine: the model's items the grounding check dropped; hybrid engine: the
    model's rewrites it rejected (the offline line stands in their place)."""
    items_rewritten: int = 0
    """Hybrid engine: lines the model rewrote in the requested language and the check
    accepted."""
    items_offline: int = 0
    """Hybrid engine: lines left as the offline engine wrote them (the rewrite was
    rejected, failed, or not asked for within the summary's bound)."""
    summary_offline: bool = False
    """Whether the ``summary`` paragraph is the offline engine's: the model's failed the
    grounding check (LLM), or its rewrite was rejected or not asked for (hybrid)."""


def utc(value: datetime) -> datetime:
    """Return ``value`` in UTC; a naive datetime is taken as UTC (DESIGN.md §3)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso_z(value: datetime) -> str:
    """Format a datetime as ISO 8601 UTC with a ``Z`` suffix."""
    return utc(value).isoformat().replace("+00:00", "Z")
