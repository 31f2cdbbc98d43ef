"""When a rule is due and what its digest covers: days in a zone with clock changes,
weeks, a first digest, and one digest after a downtime of several periods."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.delivery.periods import (
    Rule,
    boundary_after,
    count_boundaries,
    due_period,
    latest_boundary,
)
from toolkit.errors import InvalidRequest

BERLIN = ZoneInfo("Europe/Berlin")
DAILY_8 = Rule("daily", time(8, 0))


def test_daily_boundary_is_the_wall_clock_time_in_the_zone() -> None:
    moment = datetime(2024, 3, 1, 7, 30, tzinfo=UTC)  # 08:30 in Berlin (UTC+1)
    assert boundary_after(DAILY_8, BERLIN, moment) == datetime(2024, 3, 2, 7, 0, tzinfo=UTC)
    assert latest_boundary(DAILY_8, BERLIN, moment) == datetime(2024, 3, 1, 7, 0, tzinfo=UTC)


def test_a_day_with_the_clock_change_is_23_hours() -> None:
    # Berlin moves to summer time on 31 March 2024: 08:00 is 07:00 UTC before, 06:00 after.
    start = datetime(2024, 3, 30, 7, 0, tzinfo=UTC)
    now = datetime(2024, 3, 31, 12, 0, tzinfo=UTC)
    period = due_period(DAILY_8, BERLIN, created_at=start, covered_until=start, now=now)
    assert period is not None
    assert period.end == datetime(2024, 3, 31, 6, 0, tzinfo=UTC)
    assert period.end - period.start == timedelta(hours=23)


def test_weekly_on_a_weekday() -> None:
    rule = Rule.parse("weekly", "18:30", "fri")
    zone = timezone(timedelta(hours=3))
    monday = datetime(2024, 5, 6, 12, 0, tzinfo=UTC)
    assert boundary_after(rule, zone, monday) == datetime(2024, 5, 10, 15, 30, tzinfo=UTC)
    assert rule.text() == "weekly on fri at 18:30"


def test_a_new_schedule_waits_for_its_first_boundary_then_covers_the_period_before() -> None:
    created = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)  # 10:00 Berlin: after today's 08:00
    before = datetime(2024, 3, 2, 6, 59, tzinfo=UTC)
    assert due_period(DAILY_8, BERLIN, created_at=created, covered_until=None, now=before) is None
    at = datetime(2024, 3, 2, 7, 0, tzinfo=UTC)
    period = due_period(DAILY_8, BERLIN, created_at=created, covered_until=None, now=at)
    assert period is not None
    assert (period.start, period.end, period.periods) == (
        datetime(2024, 3, 1, 7, 0, tzinfo=UTC),
        at,
        1,
    )


def test_missed_days_are_one_period() -> None:
    covered = datetime(2024, 3, 1, 7, 0, tzinfo=UTC)
    now = datetime(2024, 3, 4, 9, 15, tzinfo=UTC)  # three boundaries passed meanwhile
    period = due_period(DAILY_8, BERLIN, created_at=covered, covered_until=covered, now=now)
    assert period is not None
    assert period.start == covered
    assert period.end == datetime(2024, 3, 4, 7, 0, tzinfo=UTC)
    assert period.periods == 3
    assert count_boundaries(DAILY_8, BERLIN, covered, period.end) == 3


def test_nothing_is_due_twice() -> None:
    covered = datetime(2024, 3, 4, 7, 0, tzinfo=UTC)
    now = datetime(2024, 3, 4, 23, 0, tzinfo=UTC)
    assert due_period(DAILY_8, BERLIN, created_at=covered, covered_until=covered, now=now) is None


@pytest.mark.parametrize(
    ("cadence", "at", "weekday", "field"),
    [
        ("hourly", "08:00", None, "cadence"),
        ("daily", "25:00", None, "at"),
        ("daily", "8am", None, "at"),
        ("weekly", "08:00", None, "weekday"),
        ("weekly", "08:00", "someday", "weekday"),
        ("daily", "08:00", "mon", "weekday"),
    ],
)
def test_bad_rules_name_their_field(cadence: str, at: str, weekday: str | None, field: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        Rule.parse(cadence, at, weekday)
    assert caught.value.field == field
