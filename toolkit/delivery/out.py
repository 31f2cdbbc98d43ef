"""What every face answers about schedules: ``ScheduleOut`` (``/v1/schedules``, the MCP
tool, ``mlens schedule list --json``), with secrets shown as ``**********``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from toolkit.delivery.periods import WEEKDAYS
from toolkit.delivery.status import DestinationOut, ScheduleStatus
from toolkit.wire import UtcTime


class RunOut(BaseModel):
    """A schedule's last run."""

    id: int
    period_start: UtcTime
    period_end: UtcTime
    periods: int = Field(description="Periods it covers (more than 1 after downtime).")
    status: Literal["claimed", "written", "done", "failed"]
    error: str | None = None
    finished_at: UtcTime | None = None


class ScheduleOut(BaseModel):
    """A digest schedule, its last run and each destination's state."""

    id: int
    source_ref: str
    topic_id: int | None = None
    cadence: Literal["daily", "weekly"]
    at: str = Field(description="HH:MM in the source's time zone.")
    weekday: str | None = Field(None, description="mon..sun for a weekly schedule.")
    language: str
    engine: str | None = Field(None, description="null: the service's default engine.")
    created_at: UtcTime
    covered_until: UtcTime | None = Field(None, description="Where the last digest's period ended.")
    last_run: RunOut | None = None
    destinations: list[DestinationOut]
    feed_path: str | None = Field(None, description="The Atom feed, when one is a destination.")


class ScheduleList(BaseModel):
    """Every schedule."""

    items: list[ScheduleOut]


def schedule_out(status: ScheduleStatus) -> ScheduleOut:
    """A schedule's status as every face answers it."""
    s = status.schedule
    run = status.last_run
    return ScheduleOut(
        id=s.id,
        source_ref=s.source_ref,
        topic_id=s.topic_id,
        cadence=s.rule.cadence,
        at=f"{s.rule.at:%H:%M}",
        weekday=WEEKDAYS[s.rule.weekday] if s.rule.weekday is not None else None,
        language=s.language,
        engine=s.engine,
        created_at=s.created_at,
        covered_until=s.covered_until,
        last_run=None if run is None else RunOut.model_validate(run, from_attributes=True),
        destinations=list(status.destinations),
        feed_path=f"/v1/schedules/{s.id}/feed.atom"
        if any(d.kind == "feed" for d in s.destinations)
        else None,
    )
