"""A search request's bounds (DESIGN.md §3) and filters, checked before any work.

The bounds themselves live in ``toolkit.requests`` (re-exported here). The service
validates them in its request schema; these checks make the toolkit's own callers (CLI,
notebooks, app) get the same ``InvalidRequest`` naming the offending field.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def check_filters(
    *, topic_id: int | None, sender_peer_ids: Sequence[str] | None
) -> tuple[int | None, list[str] | None]:
    """Check the optional topic and sender filters of a search or summary request.

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


__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_SCAN",
    "MAX_SENDERS",
    "MAX_TOPIC_ID",
    "PEER_ID_RE",
    "check_filters",
    "check_request",
]
