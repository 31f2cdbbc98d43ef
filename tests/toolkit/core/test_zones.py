"""``zone_name`` and ``zone_of``: a source's time zone, as an IANA name or a fixed offset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.errors import InvalidRequest
from toolkit.timeparse import offset_name, zone_name, zone_of


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("+09:00", "+09:00"),
        ("+9", "+09:00"),
        ("+0930", "+09:30"),
        ("UTC+3", "+03:00"),
        ("gmt-05:30", "-05:30"),
        (" -12:00 ", "-12:00"),
        ("+14:00", "+14:00"),
        ("+00:00", "+00:00"),
        ("Europe/Berlin", "Europe/Berlin"),
        (" Asia/Tokyo ", "Asia/Tokyo"),
        ("UTC", "UTC"),
    ],
)
def test_zone_names_are_written_one_way(given: str, name: str) -> None:
    assert zone_name(given) == name


@pytest.mark.parametrize(
    "given", ["", "  ", "Mars/Olympus", "+15:00", "-13:00", "+03:75", "../etc/passwd", "+"]
)
def test_an_unknown_zone_is_an_invalid_request_naming_the_field(given: str) -> None:
    with pytest.raises(InvalidRequest, match="unknown time zone") as caught:
        zone_name(given)
    assert caught.value.field == "timezone"


def test_zone_of_gives_a_tzinfo() -> None:
    assert zone_of("+09:00") == timezone(timedelta(hours=9))
    assert zone_of("-05:30") == timezone(-timedelta(hours=5, minutes=30))
    assert zone_of("Europe/Berlin") == ZoneInfo("Europe/Berlin")
    assert zone_of(None) is UTC
    assert zone_of("") is UTC
    assert zone_of("+00:00").utcoffset(None) == timedelta(0)
    summer = datetime(2026, 7, 1, 12, tzinfo=UTC)
    assert zone_of("Europe/Berlin").utcoffset(summer) == timedelta(hours=2)
    with pytest.raises(InvalidRequest):
        zone_of("Nowhere/City")


def test_offset_names() -> None:
    assert offset_name(timedelta(hours=3)) == "+03:00"
    assert offset_name(-timedelta(hours=3, minutes=30)) == "-03:30"
    assert offset_name(timedelta(0)) == "+00:00"
    assert zone_name(offset_name(timedelta(hours=5, minutes=45))) == "+05:45"
