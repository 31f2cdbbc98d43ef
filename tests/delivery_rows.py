"""Rows of a schedule and of an alert as the store and service tests seed them: the
values no test of theirs is about, written once."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from toolkit.store.alert_rows import NewAlert
from toolkit.store.schedule_rows import NewSchedule


def daily_feed_schedule(source_id: int, source_ref: str, created_at: datetime) -> NewSchedule:
    """A daily digest of ``source_id`` at 08:00, in English by the default engine, to
    the Atom feed."""
    return NewSchedule(
        source_id=source_id,
        source_ref=source_ref,
        topic_id=None,
        cadence="daily",
        at_minute=8 * 60,
        weekday=None,
        language="en",
        engine=None,
        destinations='[{"kind": "feed"}]',
        created_at=created_at,
    )


def email_alert(
    query: str,
    source_refs: Sequence[str] | None,
    *,
    created_at: datetime,
    watermarks: Mapping[int, int],
    max_per_hour: int,
    min_score: float = 0.3,
    to: str = "a@b.c",
) -> NewAlert:
    """An alert on ``source_refs`` (``None``: every source) that e-mails ``to``."""
    return NewAlert(
        query=query,
        source_refs=None if source_refs is None else json.dumps(list(source_refs)),
        min_score=min_score,
        max_per_hour=max_per_hour,
        destinations=json.dumps([{"kind": "email", "to": [to]}]),
        created_at=created_at,
        watermarks=watermarks,
    )
