"""The requests a face hands the Workspace: one typed object per search or summary.

A route, a command, an app page or a notebook builds one of these and the object itself
travels through ``Workspace`` to the searcher or the summary pipeline; nothing on the
way takes the request apart into positional arguments.

- ``ScopedRequest``: the topic and sender filters every request has, and
  ``message_filter()``, the checked ``MessageFilter`` of the messages the request reads
  (its period, topic, senders), resolved here once and passed down to the store;
- ``BaseSearchRequest``: the fields both searches share (query, window, ranking);
- ``SearchRequest``: rank one source's recent messages for a query;
- ``SearchAllRequest``: rank the recent messages of several sources as one list;
- ``BaseSummaryRequest``: the fields both summaries share (source, language, engine, cache);
- ``SummaryRequest``: summarise a period ``[started_at, ended_at)`` of a source;
- ``SourceSummaryRequest``: say what a source is about, from a sample of its whole life.

Times are datetimes (naive means UTC). A person's times (``"2026-03-02"``) become these
through ``search_period`` and ``summary_period`` (``toolkit.timeparse``), so that a bare
day means the same in the CLI, the app and the notebooks. The bounds of DESIGN.md §3 are
here too, for the service's schemas and the toolkit's own checks to share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any, TypedDict, TypeVar, Unpack

from toolkit.errors import InvalidRequest
from toolkit.models import MessageFilter, SourceKind
from toolkit.refs import SourceArg
from toolkit.timeparse import When, search_period, summary_period
from toolkit.weights import WeightsArg

MAX_LIMIT = 100
MAX_SCAN = 10_000
MAX_QUERY_CHARS = 1000
MAX_SENDERS = 100
MAX_TOPIC_ID = 2**31 - 1
"""Topic ids are message ids: 32-bit on the messenger."""
MAX_SOURCE_MESSAGES = 5000
"""The most messages a source summary may read."""
PEER_ID_RE = re.compile(r"^(?:user|channel|chat)[1-9][0-9]{0,18}$")
"""A sender's peer id as messages carry it: ``user123``, ``channel123``, ``chat123``."""


def check_filters(
    *, topic_id: int | None, sender_peer_ids: Sequence[str] | None
) -> tuple[int | None, list[str] | None]:
    """Check the optional topic and sender filters of a request.

    Returns:
        The topic id, and the sender ids without repeats (``None``: no sender filter).

    Raises:
        InvalidRequest: a topic id that is not a positive integer (``field="topic_id"``),
            or a sender id that is not ``user<id>``/``channel<id>``/``chat<id>``, or more
            than ``MAX_SENDERS`` of them (``field="sender_peer_ids"``).
    """
    if topic_id is not None and (
        isinstance(topic_id, bool)
        or not isinstance(topic_id, int)
        or not 1 <= topic_id <= MAX_TOPIC_ID
    ):
        raise InvalidRequest(
            f"topic_id must be an integer in 1..{MAX_TOPIC_ID}, got {topic_id!r}",
            field="topic_id",
        )
    if sender_peer_ids is None:
        return topic_id, None
    if isinstance(sender_peer_ids, str):
        sender_peer_ids = [sender_peer_ids]
    senders = list(dict.fromkeys(str(s).strip() for s in sender_peer_ids))
    if not senders or len(senders) > MAX_SENDERS:
        raise InvalidRequest(
            f"sender_peer_ids must list 1..{MAX_SENDERS} senders, got {len(senders)}",
            field="sender_peer_ids",
        )
    bad = [s for s in senders if not PEER_ID_RE.match(s)]
    if bad:
        raise InvalidRequest(
            f"sender ids look like 'user123' or 'channel123', not {bad[0]!r}",
            field="sender_peer_ids",
        )
    return topic_id, senders


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopedRequest:
    """The filters every search and summary request has: one forum topic, some senders.

    Attributes:
        topic_id: only this forum topic's messages (General is 1).
        sender_peer_ids: only these senders' messages.
    """

    topic_id: int | None = None
    sender_peer_ids: Sequence[str] | None = None

    def message_filter(self, linked_topic: int | None = None) -> MessageFilter:
        """The store's filter for the messages this request reads, checked: its period
        (each request's own), topic and senders.

        Args:
            linked_topic: the topic the request's link points into, taken when the request
                names none.

        Raises:
            InvalidRequest: a bad topic id or sender id (``check_filters``).
        """
        topic_id, senders = check_filters(
            topic_id=linked_topic if self.topic_id is None else self.topic_id,
            sender_peer_ids=self.sender_peer_ids,
        )
        return self._read(MessageFilter(topic_id=topic_id, sender_peer_ids=senders))

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """``scope`` (the checked topic and senders) with what this request reads."""
        return scope


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseSearchRequest(ScopedRequest):
    """What every hybrid search takes: the query, the window's bounds and filters, the
    ranking's options (``SearchRequest`` adds one source, ``SearchAllRequest`` several).

    Attributes:
        query: the search text, 1..1000 characters, not blank.
        limit: hits to return (over all sources), 1..100; ``None``:
            ``Settings.search.default_limit``.
        scan_messages_limit: recent messages to scan (in each source), 1..10000; ``None``:
            the settings'.
        period_from: scan only messages posted at or after this moment.
        period_to: ... at or before this one.
        weights: this call's weights (``SearchWeights`` or a mapping of some fields).
        explain: attach each hit's four signals.
        topic_id: scan only this forum topic (of each source; General is 1).
        sender_peer_ids: scan only these senders' messages (each window is theirs).
    """

    query: str
    limit: int | None = None
    scan_messages_limit: int | None = None
    period_from: datetime | None = None
    period_to: datetime | None = None
    weights: WeightsArg = None
    explain: bool = False

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The scan window: searchable messages in ``[period_from, period_to]``."""
        return replace(scope, since=self.period_from, until=self.period_to).searchable()


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchRequest(BaseSearchRequest):
    """A hybrid search of one source's most recent messages.

    Attributes:
        source_ref: the source (``@handle``, a t.me link; hits echo it as given).
        query, limit, scan_messages_limit, period_from, period_to, weights, explain,
            topic_id, sender_peer_ids: as for ``BaseSearchRequest``.
    """

    source_ref: SourceArg


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchAllRequest(BaseSearchRequest):
    """A hybrid search of the most recent messages of several sources, as one ranking.

    Sources × ``scan_messages_limit`` is bounded by ``Settings.search.all_max_scan``.

    Attributes:
        source_refs: the sources (hits echo each reference as given); ``None``: every
            source in the store (hits carry each source's key, ``@handle`` or ``c/<id>``).
        query, limit, scan_messages_limit, period_from, period_to, weights, explain,
            topic_id, sender_peer_ids: as for ``BaseSearchRequest``, ``limit`` over all
            sources, the window and its filters in each source.
    """

    source_refs: Sequence[SourceArg] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseSummaryRequest(ScopedRequest):
    """What both summaries take (``SummaryRequest`` adds a period, ``SourceSummaryRequest``
    a bound on the messages read).

    Attributes:
        source_ref: the source (the summary echoes it as given).
        language: ISO 639-1 code of the summary's language.
        engine: ``"auto"`` or an engine's name; ``None``: ``Settings.summary.engine``.
        use_cache: answer from the cache when it holds this summary.
        topic_id, sender_peer_ids: as for ``ScopedRequest``.
    """

    source_ref: SourceArg
    language: str = "en"
    engine: str | None = None
    use_cache: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryRequest(BaseSummaryRequest):
    """A summary of what a source posted in ``[started_at, ended_at)``.

    Attributes:
        started_at: start of the period, inclusive.
        ended_at: end of the period, exclusive; after ``started_at``.
        kind: the chat or channel variant; ``None``: the source's own kind.
        source_ref, language, engine, use_cache, topic_id, sender_peer_ids: as for
            ``BaseSummaryRequest``.
    """

    started_at: datetime
    ended_at: datetime
    kind: SourceKind | None = None

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The period's messages, ``[started_at, ended_at)``."""
        return replace(scope, since=self.started_at, before=self.ended_at)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceSummaryRequest(BaseSummaryRequest):
    """What a source is about, from a sample spread over its whole life (no period wording).

    Attributes:
        messages_limit: messages to read at most, 1..5000 (a sample spread over the
            source's whole life when it has more); ``None``: the settings'.
        source_ref, language, engine, use_cache, topic_id, sender_peer_ids: as for
            ``BaseSummaryRequest``.
    """

    messages_limit: int | None = None

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The source's searchable messages, its whole life."""
        return scope.searchable()


AnySummaryRequest = SummaryRequest | SourceSummaryRequest
"""Either kind of summary request (``Workspace.summarize`` takes both)."""

AnyRequest = TypeVar(
    "AnyRequest", SearchRequest, SearchAllRequest, SummaryRequest, SourceSummaryRequest
)


def request_from(request_type: type[AnyRequest], source: object, /, **overrides: Any) -> AnyRequest:
    """A request of ``request_type`` built from the same-named attributes of ``source``.

    A face whose input already has the request's field names (a /v1 body, a tool's
    arguments) hands it over whole instead of copying it field by field.

    Args:
        request_type: ``SearchRequest``, ``SearchAllRequest``, ``SummaryRequest`` or
            ``SourceSummaryRequest``.
        source: any object; each of its attributes named like a field of ``request_type`` is taken.
        overrides: fields to set whatever ``source`` holds (e.g. ``weights``, ``kind``).

    Returns:
        The request; fields ``source`` lacks keep their defaults.
    """
    names = (field.name for field in fields(request_type))
    taken = {name: getattr(source, name) for name in names if hasattr(source, name)}
    return request_type(**(taken | overrides))


class ScopeOptions(TypedDict, total=False):
    """The fields of a ``ScopedRequest``, as keyword arguments."""

    topic_id: int | None
    sender_peer_ids: Sequence[str] | None


class SearchOptions(ScopeOptions, total=False):
    """The optional fields of a ``SearchRequest``, as keyword arguments."""

    limit: int | None
    scan_messages_limit: int | None
    weights: WeightsArg
    explain: bool


class SummaryOptions(ScopeOptions, total=False):
    """The optional fields both summary requests have, as keyword arguments."""

    language: str
    engine: str | None
    use_cache: bool


def search_request(
    source_ref: SourceArg,
    query: str,
    *,
    period: tuple[When | None, When | None] = (None, None),
    **options: Unpack[SearchOptions],
) -> SearchRequest:
    """A ``SearchRequest`` from what a person gave (the CLI, the app, a notebook).

    Args:
        source_ref, query: the source and the search text.
        period: ``(from, to)``, both inclusive, each a datetime, a date or ISO 8601 text
            (a bare day is in whole); ``None`` leaves that side open.
        options: the request's other fields.

    Raises:
        InvalidRequest: a bound that is no ISO 8601 date or datetime.
    """
    period_from, period_to = search_period(*period)
    return SearchRequest(
        source_ref=source_ref, query=query, period_from=period_from, period_to=period_to, **options
    )


def search_all_request(
    query: str,
    *,
    source_refs: Sequence[SourceArg] | None = None,
    period: tuple[When | None, When | None] = (None, None),
    **options: Unpack[SearchOptions],
) -> SearchAllRequest:
    """A ``SearchAllRequest`` from what a person gave (the CLI, the app, a notebook).

    Args:
        query: the search text.
        source_refs: the sources; ``None`` (or empty): every stored source.
        period: ``(from, to)`` as for ``search_request``.
        options: the request's other fields.

    Raises:
        InvalidRequest: a bound that is no ISO 8601 date or datetime.
    """
    period_from, period_to = search_period(*period)
    return SearchAllRequest(
        query=query,
        source_refs=list(source_refs) if source_refs else None,
        period_from=period_from,
        period_to=period_to,
        **options,
    )


def summary_request(
    source_ref: SourceArg,
    *,
    period: tuple[When | None, When | None] | None,
    kind: str | SourceKind | None = None,
    messages_limit: int | None = None,
    **options: Unpack[SummaryOptions],
) -> AnySummaryRequest:
    """A summary request from what a person gave (the CLI, the app, a notebook).

    Args:
        source_ref: the source.
        period: ``(start, end)`` for a ``SummaryRequest`` of ``[start, end)`` (a bare start
            day is its midnight, a bare end day is in whole); ``None`` for a
            ``SourceSummaryRequest``, what the source is about.
        kind: a period summary's variant, ``"chat"`` or ``"channel"`` (or ``SourceKind``);
            ``None``: the source's own kind.
        messages_limit: how many messages a source summary reads at most.
        options: the fields both requests have.

    Raises:
        InvalidRequest: a missing or malformed bound, an unknown kind, or an option the
            chosen request does not take.
    """
    if period is None:
        if kind is not None:
            raise InvalidRequest("a source summary takes no kind", field="kind")
        return SourceSummaryRequest(source_ref=source_ref, messages_limit=messages_limit, **options)
    if messages_limit is not None:
        raise InvalidRequest("a period summary takes no messages_limit", field="messages_limit")
    try:
        variant = None if kind is None else SourceKind(kind)
    except ValueError:
        raise InvalidRequest(f"unknown kind {kind!r}: chat or channel", field="kind") from None
    started_at, ended_at = summary_period(*period)
    return SummaryRequest(
        source_ref=source_ref, started_at=started_at, ended_at=ended_at, kind=variant, **options
    )
