"""When a schedule is due, and which period its digest covers: pure functions of a rule,
a time zone and a clock's reading.

A digest is due at each *boundary*: the rule's wall-clock time (daily, or on one weekday)
in the source's zone; the digest of a boundary covers the period from the boundary
before it, so that a daily digest at 08:00 reads the 24 hours up to 08:00 (23 or 25 on
the days the clocks change). After downtime, every boundary missed is covered by ONE
digest, from where the last one ended to the latest boundary passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal

from toolkit.errors import InvalidRequest

Cadence = Literal["daily", "weekly"]
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MAX_PERIODS = 10_000  # a period count past this is only shown as "many"


@dataclass(frozen=True, slots=True)
class Rule:
    """When a schedule's digest is due: every day, or every week on ``weekday`` (0 is
    Monday), at ``at`` in the source's own time zone."""

    cadence: Cadence
    at: time
    weekday: int | None = None

    def __post_init__(self) -> None:
        if self.cadence not in ("daily", "weekly"):
            raise InvalidRequest("cadence must be daily or weekly", field="cadence")
        if (self.cadence == "weekly") != (self.weekday is not None):
            raise InvalidRequest(
                "a weekly schedule, and only one, names a weekday", field="weekday"
            )
        if self.weekday is not None and not 0 <= self.weekday <= 6:
            raise InvalidRequest("weekday must be mon..sun", field="weekday")

    @classmethod
    def parse(cls, cadence: str, at: str, weekday: str | None = None) -> Rule:
        """A rule from its words: ``("daily", "08:00")``, ``("weekly", "18:30", "fri")``.

        Raises:
            InvalidRequest: a cadence, time (``HH:MM``) or weekday it cannot read.
        """
        try:
            hours, minutes = (int(part) for part in at.strip().split(":"))
            moment = time(hours, minutes)
        except ValueError:
            raise InvalidRequest(f"time must read HH:MM, got {at!r}", field="at") from None
        day = None
        if weekday is not None:
            key = weekday.strip().lower()[:3]
            if key not in WEEKDAYS:
                raise InvalidRequest(
                    f"weekday must be one of {', '.join(WEEKDAYS)}", field="weekday"
                )
            day = WEEKDAYS.index(key)
        return cls(cadence=cadence.strip().lower(), at=moment, weekday=day)  # type: ignore[arg-type]

    @property
    def minute(self) -> int:
        """Minutes after local midnight."""
        return self.at.hour * 60 + self.at.minute

    def text(self) -> str:
        """``daily at 08:00`` or ``weekly on mon at 08:00``."""
        day = f" on {WEEKDAYS[self.weekday]}" if self.weekday is not None else ""
        return f"{self.cadence}{day} at {self.at:%H:%M}"


@dataclass(frozen=True, slots=True)
class Period:
    """What one run covers: ``[start, end)`` in UTC, ``periods`` of the rule's."""

    start: datetime
    end: datetime
    periods: int


def _on(day: date, rule: Rule, zone: tzinfo) -> datetime:
    """The boundary on a local ``day``, in UTC (a time the clocks skip reads as the
    zone's offset before the change)."""
    return datetime.combine(day, rule.at, tzinfo=zone).astimezone(UTC)


def _step(rule: Rule) -> timedelta:
    return timedelta(days=7 if rule.cadence == "weekly" else 1)


def _first_day(rule: Rule, day: date) -> date:
    """``day`` or the next day the rule falls on (a weekly rule's weekday)."""
    if rule.weekday is None:
        return day
    return day + timedelta(days=(rule.weekday - day.weekday()) % 7)


def boundary_after(rule: Rule, zone: tzinfo, moment: datetime) -> datetime:
    """The first boundary strictly after ``moment``."""
    day = _first_day(rule, moment.astimezone(zone).date() - timedelta(days=1))
    while (found := _on(day, rule, zone)) <= moment:
        day += _step(rule)
    return found


def boundary_before(rule: Rule, zone: tzinfo, boundary: datetime) -> datetime:
    """The boundary before ``boundary`` (a day or a week before it, by the wall clock)."""
    local = boundary.astimezone(zone).date() - _step(rule)
    return _on(local, rule, zone)


def latest_boundary(rule: Rule, zone: tzinfo, moment: datetime) -> datetime:
    """The last boundary at or before ``moment``."""
    found = boundary_after(rule, zone, moment)
    while found > moment:
        found = boundary_before(rule, zone, found)
    return found


def due_period(
    rule: Rule,
    zone: tzinfo,
    *,
    created_at: datetime,
    covered_until: datetime | None,
    now: datetime,
) -> Period | None:
    """The period a run should claim at ``now``, or ``None`` when nothing is due.

    A new schedule's first digest is the one of the first boundary after it was made,
    covering the period before it; after that each covers from where the last ended
    to the latest boundary passed (one digest for every boundary missed meanwhile).

    Args:
        rule: when the schedule is due.
        zone: the source's time zone.
        created_at: when the schedule was made.
        covered_until: where the last run's period ended (``None``: no run yet).
        now: the clock's reading.
    """
    if covered_until is None:
        start = boundary_before(rule, zone, boundary_after(rule, zone, created_at))
    else:
        start = covered_until
    end = latest_boundary(rule, zone, now)
    if end <= start:
        return None
    return Period(start=start, end=end, periods=count_boundaries(rule, zone, start, end))


def count_boundaries(rule: Rule, zone: tzinfo, start: datetime, end: datetime) -> int:
    """How many boundaries fall in ``(start, end]``."""
    count, moment = 0, start
    while count < _MAX_PERIODS and (moment := boundary_after(rule, zone, moment)) <= end:
        count += 1
    return count
