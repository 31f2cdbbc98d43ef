"""Requests from what a person gave: times as typed (``"2026-03-02"``), a kind by name.

The CLI, the app, the MCP tools and the notebooks build their requests here, so that a
bare day means the same in each (``toolkit.timeparse``: a lower bound is its midnight
UTC, an upper bound includes the whole day) and a summary's language defaults to English.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, Unpack

from toolkit.errors import InvalidRequest
from toolkit.models import SourceKind
from toolkit.refs import SourceArg
from toolkit.requests.models import (
    AnySummaryRequest,
    SearchAllRequest,
    SearchRequest,
    SourceSummaryRequest,
    SummaryRequest,
)
from toolkit.timeparse import When, search_period, summary_period
from toolkit.weights import WeightsArg


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
        options: the fields both requests have (``language``: English unless given).

    Raises:
        InvalidRequest: a missing or malformed bound, an unknown kind, or an option the
            chosen request does not take.
    """
    options = SummaryOptions(language="en") | options
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
