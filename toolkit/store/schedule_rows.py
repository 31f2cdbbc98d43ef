"""The rows of digest schedules, their runs and each destination's result, as the store
keeps them (``schedules.py`` writes and reads them; ``toolkit.delivery`` gives them
meaning: the rule, the destinations' JSON, the digest's JSON).

Times are UTC datetimes here and Unix seconds in the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypedDict

from toolkit.store.rows import dt, from_row, when

RunStatus = Literal["claimed", "written", "done", "failed"]
"""``claimed``: the period is leased, no digest yet; ``written``: the digest is stored,
some destination still waits; ``done``: every destination sent or gave up; ``failed``:
the digest itself could not be written."""
ResultState = Literal["sending", "sent", "failed", "uncertain"]
"""``sending``: an attempt began (a worker that dies here leaves it for the next one);
``uncertain``: it began, its worker died, and the destination may have it (not sent
again unless a person asks)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NewSchedule:
    """A schedule to store: the source, the rule, what to write and where to send it."""

    source_id: int
    source_ref: str
    topic_id: int | None
    cadence: Literal["daily", "weekly"]
    at_minute: int
    """Minutes after local midnight (in the source's zone) the digest is due."""
    weekday: int | None
    """0 (Monday) .. 6 for a weekly schedule; ``None`` for a daily one."""
    language: str
    engine: str | None
    destinations: str
    """The destinations as JSON (``toolkit.delivery.destinations``), secrets included."""
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleRecord(NewSchedule):
    """A stored schedule, with the end of the last period a run claimed."""

    id: int
    covered_until: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Lease:
    """A leased record (a schedule's run, an alert's post): who holds it till when, its
    tries, its end and why its last try failed."""

    id: int
    status: RunStatus
    owner: str
    lease_until: datetime
    attempts: int
    """Tries (of a run: to write its digest)."""
    claimed_at: datetime
    finished_at: datetime | None
    error: str | None


class LeaseTerms(TypedDict):
    """Who takes a lease till when, and the time it is taken at (as keywords)."""

    owner: str
    lease_until: datetime
    now: datetime


class PeriodClaim(LeaseTerms):
    """What ``claim_period`` takes besides the schedule's id, as keywords: the period
    ``[start, end)``, how many of the schedule's periods it covers, and the lease."""

    covered_until: datetime | None
    """The schedule's ``covered_until`` as the caller read it: the claim fails when it
    has moved since (another worker claimed)."""
    start: datetime
    end: datetime
    periods: int


LEASE_TIMES = {"lease_until": when, "claimed_at": when, "finished_at": dt}
"""How a lease's times are read from a row (``from_row``)."""


class RunChanges(TypedDict, total=False):
    """What ``update_run`` writes of a leased record besides its lease, as keywords:
    ``error`` always (left out, it is cleared), the others when given and not ``None``."""

    status: RunStatus | None
    attempts: int | None
    digest: str | None
    """Runs alone have one."""
    error: str | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord(Lease):
    """One run: the lease of a period ``[period_start, period_end)`` of a schedule."""

    schedule_id: int
    period_start: datetime
    period_end: datetime
    periods: int
    """How many of the schedule's periods it covers (more than one after downtime)."""
    digest: str | None
    """The digest as JSON once written (``toolkit.wire.SummaryOut``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultRecord:
    """What one destination of a run came to."""

    run_id: int
    destination: int
    """The destination's place in its schedule's list."""
    state: ResultState
    attempts: int
    detail: str | None
    updated_at: datetime


class Outcome(TypedDict):
    """What ``set_result`` records of one destination of a record, as keywords."""

    state: ResultState
    attempts: int
    detail: str | None
    now: datetime
    """When (the result's ``updated_at``)."""


SCHEDULE_COLUMNS = (
    "id, source_id, source_ref, topic_id, cadence, at_minute, weekday, language, engine, "
    "destinations, created_at, covered_until"
)
RUN_COLUMNS = (
    "id, schedule_id, period_start, period_end, periods, status, owner, lease_until, "
    "attempts, claimed_at, finished_at, digest, error"
)
RESULT_COLUMNS = "run_id, destination, state, attempts, detail, updated_at"


def to_schedule(row: Sequence[Any]) -> ScheduleRecord:
    """A ``ScheduleRecord`` from a row of ``SCHEDULE_COLUMNS``."""
    return from_row(ScheduleRecord, SCHEDULE_COLUMNS, row, created_at=when, covered_until=dt)


def to_run(row: Sequence[Any]) -> RunRecord:
    """A ``RunRecord`` from a row of ``RUN_COLUMNS``."""
    return from_row(RunRecord, RUN_COLUMNS, row, period_start=when, period_end=when, **LEASE_TIMES)


def to_result(row: Sequence[Any]) -> ResultRecord:
    """A ``ResultRecord`` from a row of ``RESULT_COLUMNS``."""
    return from_row(ResultRecord, RESULT_COLUMNS, row, updated_at=when)
