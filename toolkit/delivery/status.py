"""What a schedule's runs came to, for people: ``mlens schedule list``, ``/v1/schedules``
and ``/healthz`` show it (the last run, each destination's state and why it failed)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.delivery.model import Schedule, ScheduleSpec, stored_destinations
from toolkit.models import Source
from toolkit.store.base import ScheduleStore
from toolkit.store.schedule_rows import NewSchedule, ResultRecord, RunRecord


@dataclass(frozen=True, slots=True)
class DestinationStatus:
    """One destination of a schedule, and what the last run that reached it did."""

    index: int
    label: str
    state: str
    """``sent``, ``failed``, ``sending``, ``uncertain`` (its worker died mid-send: it may
    have arrived), or ``waiting`` (no run has reached it yet)."""
    attempts: int
    detail: str | None
    at: datetime | None


@dataclass(frozen=True, slots=True)
class ScheduleStatus:
    """A schedule, its last run and each destination's state."""

    schedule: Schedule
    last_run: RunRecord | None
    destinations: tuple[DestinationStatus, ...]

    @property
    def failing(self) -> tuple[DestinationStatus, ...]:
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
    latest: dict[int, ResultRecord] = {}
    for result in store.results([r.id for r in runs]):  # by run: the latest run's last
        latest[result.destination] = result
    rows = []
    for index, destination in enumerate(schedule.destinations):
        found = latest.get(index)
        rows.append(
            DestinationStatus(
                index=index,
                label=destination.label(),
                state=found.state if found else "waiting",
                attempts=found.attempts if found else 0,
                detail=found.detail if found else None,
                at=found.updated_at if found else None,
            )
        )
    return ScheduleStatus(schedule, runs[0] if runs else None, tuple(rows))
