"""A search request's bounds (DESIGN.md §3), checked before any work.

The bounds live in ``toolkit.limits`` (re-exported here); a request model is checked
against them when it is made. The searcher checks again what the request left to the
settings (``limit``, ``scan_messages_limit``) once they are filled in, and the query as
it will be searched (stripped).
"""

from __future__ import annotations

from datetime import datetime

from toolkit.errors import InvalidRequest
from toolkit.limits import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SENDERS,
    MAX_TOPIC_ID,
)
from toolkit.models import utc


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


__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_SCAN",
    "MAX_SENDERS",
    "MAX_TOPIC_ID",
    "check_request",
]
