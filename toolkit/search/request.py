"""A search request's bounds (DESIGN.md §3) and its weights, checked before any work.

The service validates the same bounds in its request schema; these checks make the
toolkit's own callers (CLI, notebooks, app) get the same ``InvalidRequest`` naming the
offending field.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from toolkit.errors import InvalidRequest, InvalidWeights
from toolkit.models import utc
from toolkit.search.weights import SearchWeights

MAX_LIMIT = 100
MAX_SCAN = 10_000
MAX_QUERY_CHARS = 1000

WeightsArg = SearchWeights | Mapping[str, float] | None


def check_request(
    query: str,
    *,
    limit: int,
    scan_messages_limit: int,
    period_from: datetime | None,
    period_to: datetime | None,
) -> str:
    """Check a search request against the bounds of DESIGN.md §3.

    Returns:
        The query, stripped.

    Raises:
        InvalidRequest: naming the offending field.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequest("query must not be blank", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidRequest(
            f"query has {len(query)} characters, at most {MAX_QUERY_CHARS} are allowed",
            field="query",
        )
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit must be in 1..{MAX_LIMIT}, got {limit}", field="limit")
    if not 1 <= scan_messages_limit <= MAX_SCAN:
        raise InvalidRequest(
            f"scan_messages_limit must be in 1..{MAX_SCAN}, got {scan_messages_limit}",
            field="scan_messages_limit",
        )
    if period_from is not None and period_to is not None and utc(period_from) > utc(period_to):
        raise InvalidRequest("period_to must be at or after period_from", field="period_to")
    return query.strip()


def resolve_weights(weights: WeightsArg, default: SearchWeights) -> SearchWeights:
    """This call's weights: a full ``SearchWeights``, or a mapping of some of its fields
    that overrides ``default`` (the configured weights); ``None`` is ``default``.

    Raises:
        InvalidWeights: negative, non-finite or all-zero weights (``field="weights"``).
    """
    if weights is None:
        return default
    if isinstance(weights, SearchWeights):
        return weights
    try:
        return default.replace(**dict(weights))
    except InvalidWeights as exc:
        raise InvalidWeights(exc.message, field="weights") from exc
    except TypeError as exc:
        raise InvalidWeights(f"invalid search weights: {exc}", field="weights") from exc


__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_SCAN",
    "WeightsArg",
    "check_request",
    "resolve_weights",
]
