"""What a schedule's runs came to, for people: ``mlens schedule list``, ``/v1/schedules``
and ``/healthz`` show it (the last run, each destination's state and why it failed);
each destination's state as every face shows it, an alert's too (``DestinationOut``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolkit.delivery.model import Destination, Schedule, ScheduleSpec, stored_destinations
from toolkit.models import Source
from toolkit.store.base import ScheduleStore
from toolkit.store.schedule_rows import NewSchedule, ResultRecord, RunRecord
from toolkit.wire import UtcTime


class DestinationOut(BaseModel):
    """One destination and what its last delivery came to."""

    index: int
    label: str = Field(description="What it is, e.g. `telegram -100123`, `atom feed`.")
    config: dict[str, Any] = Field(description="Its settings; secrets as `**********`.")
    state: Literal["waiting", "sending", "sent", "failed", "uncertain"] = Field(
        description="`waiting` until a run reaches it; `failed` with `detail` saying why; "
        "`uncertain` when its worker stopped mid-send (it may have arrived: not sent again "
        "unless resent)."
    )
    attempts: int
    detail: str | None = None
    at: UtcTime | None = None


def destinations_out(
    destinations: Sequence[Destination], results: Iterable[ResultRecord]
) -> list[DestinationOut]:
    """Each destination and the latest of ``results`` that reached it (the results of a
    schedule's recent runs or of an alert's recent posts, by record, oldest first)."""
    latest = {r.destination: r for r in results}  # a later record's result wins
    out = []
    for index, destination in enumerate(destinations):
        found = latest.get(index)
        out.append(
            DestinationOut(
                index=index,
                label=destination.label(),
                config=destination.model_dump(mode="json"),
                state=found.state if found else "waiting",
                attempts=found.attempts if found else 0,
                detail=found.detail if found else None,
                at=found.updated_at if found else None,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class ScheduleStatus:
    """A schedule, its last run and each destination's state."""

    schedule: Schedule
    last_run: RunRecord | None
    destinations: tuple[DestinationOut, ...]

    @property
    def failing(self) -> tuple[DestinationOut, ...]:
        """The destinations whose last attempt failed or whose outcome is uncertain
        (both want a person's eye)."""
        return tuple(d for d in self.destinations if d.state in ("failed", "uncertain"))


def new_schedule(spec: ScheduleSpec, source: Source, now: datetime) -> NewSchedule:
    """The row a ``ScheduleSpec`` of ``source`` is stored as."""
    return NewSchedule(
        source_id=source.id,
        source_ref=spec.source_ref,
        topic_id=spec.topic_id,
        cadence=spec.rule.cadence,
        at_minute=spec.rule.minute,
        weekday=spec.rule.weekday,
        language=spec.language,
        engine=spec.engine,
        destinations=stored_destinations(spec.destinations),
        created_at=now,
    )


def schedule_status(store: ScheduleStore, schedule: Schedule) -> ScheduleStatus:
    """The schedule with its last run and, per destination, the latest result of the
    recent runs that reached it."""
    runs = store.runs(schedule.id, limit=10)
    results = store.results([r.id for r in runs])
    destinations = tuple(destinations_out(schedule.destinations, results))
    return ScheduleStatus(schedule, runs[0] if runs else None, destinations)
