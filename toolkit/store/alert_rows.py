"""The rows of alerts and their posts, as the store keeps them (``alerts.py`` writes and
reads them; ``toolkit.delivery.alerts`` gives them meaning: the saved search, the
destinations' JSON, the post's JSON). A destination's result of a post is a
``schedule_rows.ResultRecord`` (its ``run_id`` is the post's id).

Times are UTC datetimes here and Unix seconds in the database.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from toolkit.store.rows import dt, from_row, when
from toolkit.store.schedule_rows import LEASE_TIMES, Lease, LeaseTerms


@dataclass(frozen=True, slots=True, kw_only=True)
class NewAlert:
    """An alert to store: the saved search, its threshold, its cap and destinations."""

    query: str
    source_refs: str | None
    """The sources as given, JSON (``None``: every source)."""
    min_score: float
    max_per_hour: int
    destinations: str
    """The destinations as JSON, secrets included."""
    created_at: datetime
    watermarks: Mapping[int, int]
    """Per source id, the last message id already looked at (nothing before is new)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AlertRecord(NewAlert):
    """A stored alert, with its lease's version and the matches held back by the cap."""

    id: int
    version: int
    held: int
    held_since: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class NewPost:
    """A post to claim: one matched message (``source_id``, ``message_id``), or the note
    of held matches (both ``None``), with what it says as JSON."""

    source_id: int | None
    message_id: int | None
    body: str


class AlertClaim(LeaseTerms):
    """What ``claim_alert`` takes besides the alert's id, as keywords: the ``version``
    the caller read, the alert's new watermarks and held count, its new posts, and
    their lease."""

    version: int
    watermarks: Mapping[int, int]
    held: int
    held_since: datetime | None
    posts: Sequence[NewPost]


@dataclass(frozen=True, slots=True, kw_only=True)
class PostRecord(Lease):
    """One post: leased like a schedule's run, delivered to each destination once."""

    alert_id: int
    source_id: int | None
    message_id: int | None
    body: str


@dataclass(frozen=True, slots=True)
class NewMessages:
    """A source's messages above a watermark: how many, the highest id (the watermark
    when none), the earliest posting time, and how many messages of any id were posted
    from then on (the scan window that holds them all)."""

    count: int
    top: int
    oldest: datetime | None
    window: int


ALERT_COLUMNS = (
    "id, query, source_refs, min_score, max_per_hour, destinations, created_at, version, "
    "watermarks, held, held_since"
)
POST_COLUMNS = (
    "id, alert_id, source_id, message_id, body, status, owner, lease_until, attempts, "
    "claimed_at, finished_at, error"
)


def marks_text(watermarks: Mapping[int, int]) -> str:
    """Watermarks as the store keeps them: JSON, keys sorted (compared as text)."""
    return json.dumps({str(k): int(v) for k, v in sorted(watermarks.items())})


def _marks(text: str) -> dict[int, int]:
    return {int(k): int(v) for k, v in json.loads(text).items()}


def to_alert(row: Sequence[Any]) -> AlertRecord:
    """An ``AlertRecord`` from a row of ``ALERT_COLUMNS``."""
    return from_row(
        AlertRecord,
        ALERT_COLUMNS,
        row,
        min_score=float,
        created_at=when,
        watermarks=_marks,
        held_since=dt,
    )


def to_post(row: Sequence[Any]) -> PostRecord:
    """A ``PostRecord`` from a row of ``POST_COLUMNS``."""
    return from_row(PostRecord, POST_COLUMNS, row, **LEASE_TIMES)
