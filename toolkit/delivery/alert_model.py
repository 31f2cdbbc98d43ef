"""What an alert is: a saved search (a query, some sources or all of them), the hybrid
ranking's score a new message must reach, a cap of posts per hour, and destinations
(Telegram, webhook, e-mail: an alert has no feed).

``AlertRequest`` is the one request of every face (the ``/v1/alerts`` body, what the CLI
and the app build): its fields carry the bounds (``toolkit.limits``), so a failure is a
422 naming the field over HTTP and an ``InvalidRequest`` to a toolkit caller.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import Field, TypeAdapter

from toolkit.delivery.model import (
    MAX_DESTINATIONS,
    EmailDestination,
    TelegramDestination,
    WebhookDestination,
    parse_destinations,
    stored_destinations,
)
from toolkit.errors import InvalidRequest
from toolkit.limits import DEFAULT_ALERTS_PER_HOUR, MAX_ALERTS_PER_HOUR, MAX_QUERY_CHARS
from toolkit.requests import Request
from toolkit.requests.fields import QueryText, SourceRefStr, StrictCount
from toolkit.store.alert_rows import AlertRecord, NewAlert

AlertDestination = Annotated[
    TelegramDestination | WebhookDestination | EmailDestination,
    Field(discriminator="kind"),
]
"""Where an alert posts: a Telegram chat, a signed webhook, e-mail."""
_ALERT_DESTINATIONS: TypeAdapter[list[AlertDestination]] = TypeAdapter(list[AlertDestination])


class AlertRequest(Request):
    """An alert as a request gives it (the ``/v1/alerts`` body): a saved search, the
    score a new message must reach, the cap per hour, and where to post."""

    query: QueryText = Field(
        description=f"The saved search: 1..{MAX_QUERY_CHARS} characters, not blank."
    )
    source_refs: list[SourceRefStr] | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="The sources it watches (`@handle`, a t.me link, `c/<id>`); "
        "absent: every source, those added later included.",
    )
    min_score: float = Field(
        ge=0.0,
        le=1.0,
        description="The hybrid ranking's score (0..1, as `mlens search` shows it) a new "
        "message must reach to be posted.",
    )
    max_per_hour: StrictCount = Field(
        DEFAULT_ALERTS_PER_HOUR,
        ge=1,
        le=MAX_ALERTS_PER_HOUR,
        description=f"Posts in any hour at most (1..{MAX_ALERTS_PER_HOUR}); the matches "
        "past it are counted and the next post says how many.",
    )
    destinations: list[AlertDestination] = Field(min_length=1, max_length=MAX_DESTINATIONS)


def parse_alert_destinations(value: object) -> list[AlertDestination]:
    """An alert's destinations from JSON text or a list of mappings (as
    ``model.parse_destinations``; a feed is refused: an alert has none)."""
    found = parse_destinations(value)  # type: ignore[arg-type]
    if any(d.kind == "feed" for d in found):
        raise InvalidRequest(
            "an alert posts to telegram, webhook or email destinations, not a feed",
            field="destinations",
        )
    return _ALERT_DESTINATIONS.validate_python(found)


def new_alert(request: AlertRequest, *, now: datetime, watermarks: Mapping[int, int]) -> NewAlert:
    """The row an ``AlertRequest`` is stored as, new from ``watermarks`` on."""
    refs = request.source_refs
    return NewAlert(
        query=request.query,
        source_refs=None if refs is None else json.dumps(refs, ensure_ascii=False),
        min_score=request.min_score,
        max_per_hour=request.max_per_hour,
        destinations=stored_destinations(request.destinations),
        created_at=now,
        watermarks=watermarks,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Alert:
    """A stored alert with its sources and destinations read."""

    id: int
    query: str
    source_refs: tuple[str, ...] | None
    min_score: float
    max_per_hour: int
    destinations: tuple[AlertDestination, ...]
    created_at: datetime
    version: int
    watermarks: Mapping[int, int]
    held: int
    held_since: datetime | None

    @classmethod
    def of(cls, record: AlertRecord) -> Alert:
        """The alert a stored row holds."""
        refs = record.source_refs
        return cls(
            id=record.id,
            query=record.query,
            source_refs=None if refs is None else tuple(json.loads(refs)),
            min_score=record.min_score,
            max_per_hour=record.max_per_hour,
            destinations=tuple(parse_alert_destinations(record.destinations)),
            created_at=record.created_at,
            version=record.version,
            watermarks=dict(record.watermarks),
            held=record.held,
            held_since=record.held_since,
        )
