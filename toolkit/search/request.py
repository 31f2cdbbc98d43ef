"""A search request's bounds (DESIGN.md §3), checked before any work.

The bounds themselves live in ``toolkit.requests`` (re-exported here), with the check of
the topic and sender filters every request shares (``ScopedRequest.message_filter``). The service
validates them in its request schema; these checks make the toolkit's own callers (CLI,
notebooks, app) get the same ``InvalidRequest`` naming the offending field.
"""

from __future__ import annotations

from datetime import datetime

from toolkit.errors import InvalidRequest
from toolkit.models import utc
from toolkit.requests import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SENDERS,
    MAX_TOPIC_ID,
    PEER_ID_RE,
)


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
    "PEER_ID_RE",
    "check_request",
]
