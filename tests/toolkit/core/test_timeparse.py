"""``toolkit.timeparse``: a bare day is whole as either bound; datetimes are kept."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from toolkit.errors import InvalidRequest
from toolkit.timeparse import lower_bound, parse_time, upper_bound

DAY = datetime(2026, 3, 2, tzinfo=UTC)


def test_strings_dates_and_datetimes_are_read() -> None:
    assert parse_time("2026-03-02", "x") == date(2026, 3, 2)
    assert parse_time(" 2026-03-02T10:00:00+03:00 ", "x") == DAY + timedelta(hours=7)
    assert parse_time("2026-03-02T07:00:00Z", "x") == DAY + timedelta(hours=7)
    assert parse_time("2026-03-02T07:00", "x") == DAY + timedelta(hours=7)  # naive is UTC
    assert parse_time(datetime(2026, 3, 2, 7), "x") == DAY + timedelta(hours=7)
    assert parse_time(date(2026, 3, 2), "x") == date(2026, 3, 2)


def test_a_bare_day_as_a_lower_bound_is_its_midnight() -> None:
    assert lower_bound("2026-03-02", "since") == DAY
    assert lower_bound(date(2026, 3, 2), "since") == DAY
    assert lower_bound(None, "since") is None


def test_a_bare_day_as_an_upper_bound_includes_the_whole_day() -> None:
    last = upper_bound("2026-03-02", "until")
    assert last is not None
    assert DAY + timedelta(hours=23, minutes=59, seconds=59) < last < DAY + timedelta(days=1)
    assert upper_bound(date(2026, 3, 2), "until") == last
    assert upper_bound("2026-03-02", "ended_at", exclusive=True) == DAY + timedelta(days=1)
    assert upper_bound(None, "until") is None


def test_a_datetime_bound_is_taken_as_given() -> None:
    moment = DAY + timedelta(hours=5)
    assert lower_bound(moment, "since") == moment
    assert upper_bound(moment, "until") == moment
    assert upper_bound("2026-03-02T05:00:00Z", "ended_at", exclusive=True) == moment


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "02.03.2026", ""])
def test_anything_else_is_an_error_naming_the_field(text: str) -> None:
    with pytest.raises(InvalidRequest, match="ISO 8601") as info:
        lower_bound(text, "since")
    assert info.value.field == "since"
