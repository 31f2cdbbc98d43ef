"""Hostile text at the parsers: a ref or a time parses, or it is an ``InvalidRequest``.

Never a ``ValueError`` from urllib, an ``OverflowError`` from datetime or an ``OSError``
from the zone database: the faces show an ``InvalidRequest`` as one line (CLI), a tool
error (MCP) or a 422 problem (/v1), and anything else as a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.errors import InvalidRequest, InvalidSourceRef
from toolkit.refs import parse_ref
from toolkit.timeparse import (
    lower_bound,
    parse_time,
    search_period,
    summary_period,
    upper_bound,
    zone_name,
    zone_of,
)

HOSTILE_REFS = [
    "https://[t.me/abc",
    "t.me]/abcdef",
    "http://[::1/abcdef",
    "tg://[resolve?domain=abcdef",
    "t.me/abcdef/\u00b2",  # str.isdigit() is true, int() refuses it
    "t.me/c/\u0661\u0662/5",  # Arabic-Indic digits
    "tg://resolve?domain=abcdef%0A",  # a final newline that "$" would let through
    "t.me/abc\x00def",
    "@" + "a" * 100_000,
    "\udcff" * 600,
]
HOSTILE_TIMES = [
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-12:00",
    "0001-01-01T00:00:00+23:59",
    "99999-01-01",
    "+10000-01-01",
    "2026-03-02\x00",
    "2026-03-02T10:00:00\x00+03:00",
    "1" * 100_000,
    "\udcff",
]
T = TypeVar("T")
FIELDS = ("period_from", "period_to", "started_at", "ended_at", "since", "until")


@pytest.mark.parametrize("raw", HOSTILE_REFS)
def test_hostile_refs_are_invalid_source_refs(raw: str) -> None:
    with pytest.raises(InvalidSourceRef) as caught:
        parse_ref(raw)
    assert caught.value.field == "source_ref"
    assert len(str(caught.value)) < 400  # one short line, whatever the input's size
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", HOSTILE_TIMES)
@pytest.mark.parametrize("field", ["period_from", "ended_at"])
def test_hostile_times_are_invalid_requests_naming_the_field(text: str, field: str) -> None:
    for parse in (
        lambda: parse_time(text, field),
        lambda: lower_bound(text, field),
        lambda: upper_bound(text, field),
        lambda: upper_bound(text, field, exclusive=True),
    ):
        with pytest.raises(InvalidRequest) as caught:
            parse()
        assert caught.value.field == field
        assert len(str(caught.value)) < 400


def test_the_calendars_last_day_is_an_inclusive_bound_but_no_exclusive_end() -> None:
    last = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert upper_bound("9999-12-31", "period_to") == last
    assert search_period("0001-01-01", "9999-12-31") == (datetime(1, 1, 1, tzinfo=UTC), last)
    with pytest.raises(InvalidRequest) as caught:
        summary_period("2026-01-01", "9999-12-31")
    assert caught.value.field == "ended_at"
    assert "9999-12-31T23:59:59Z" in str(caught.value)


def test_the_extreme_instants_in_utc_are_served() -> None:
    assert parse_time("0001-01-01T00:00:00Z", "x") == datetime(1, 1, 1, tzinfo=UTC)
    assert parse_time("9999-12-31T23:59:59-00:00", "x") == datetime(
        9999, 12, 31, 23, 59, 59, tzinfo=UTC
    )
    assert summary_period("0001-01-01", "9999-12-30")[1] == datetime(9999, 12, 31, tzinfo=UTC)


@pytest.mark.parametrize("zone", ["a" * 10_000, "Europe", "Europe/", "x\x00", "../../etc/passwd"])
def test_hostile_zones_are_invalid_requests(zone: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        zone_of(zone)
    assert caught.value.field == "timezone"
    assert len(str(caught.value)) < 400


# Text that looks like refs and times often enough to reach the deep branches.
_REF_PARTS = st.sampled_from(
    ["https://", "http://", "tg://", "t.me/", "telegram.me/", "www.", "@", "c/", "s/", "/", "[",
     "]", ":", "?", "#", "%", "=", "&", "domain=", "post=", "resolve", "privatepost", "+",
     "joinchat", "abcdef", "handle_1", "123", "0", "\u00b2", "\x00", ".t.me", "\n"]
)  # fmt: skip
ref_texts = st.one_of(st.text(), st.lists(_REF_PARTS | st.text(max_size=3)).map("".join))
_TIME_PARTS = st.sampled_from(
    ["0001", "9999", "99999", "2026", "-", "01", "12", "31", "T", " ", ":", "00", "23", "59",
     ".", "999999", "+", "14", "-12", "Z", "+00:00", "+14:00", "-12:00", "\x00", "W", "5"]
)  # fmt: skip
time_texts = st.one_of(st.text(), st.lists(_TIME_PARTS).map("".join))


def _outcome(parse: Callable[[], T]) -> T | InvalidRequest:
    """What ``parse()`` returns, or the ``InvalidRequest`` it raises (anything else
    propagates and fails the test)."""
    try:
        return parse()
    except InvalidRequest as exc:
        return exc


@given(ref_texts)
def test_any_text_parses_as_a_ref_or_is_an_invalid_source_ref(text: str) -> None:
    ref = _outcome(lambda: parse_ref(text))
    if isinstance(ref, InvalidRequest):
        assert isinstance(ref, InvalidSourceRef)
        return
    assert ref.raw == text
    assert (ref.handle is None) != (ref.internal_id is None)


@given(time_texts, st.sampled_from(FIELDS), st.booleans())
def test_any_text_parses_as_a_time_or_is_an_invalid_request(
    text: str, field: str, exclusive: bool
) -> None:
    low = _outcome(lambda: lower_bound(text, field))
    high = _outcome(lambda: upper_bound(text, field, exclusive=exclusive))
    if isinstance(low, InvalidRequest) or isinstance(high, InvalidRequest):
        refused = [found for found in (low, high) if isinstance(found, InvalidRequest)]
        assert {exc.field for exc in refused} == {field}
        return
    assert low is not None
    assert high is not None
    assert low.utcoffset() == timedelta(0)
    assert low <= high


@given(st.text())
def test_any_text_is_a_zone_or_an_invalid_request(text: str) -> None:
    found = _outcome(lambda: zone_name(text))
    if isinstance(found, InvalidRequest):
        assert found.field == "timezone"


_offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
_near_the_limits = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(1, 1, 3)),
    st.datetimes(min_value=datetime(9999, 12, 30), max_value=datetime(9999, 12, 31, 23, 59)),
)


@given(_near_the_limits, _offsets, st.sampled_from(FIELDS))
def test_datetimes_near_the_limits_convert_to_utc_or_are_invalid_requests(
    local: datetime, zone: timezone, field: str
) -> None:
    moment = local.replace(tzinfo=zone)
    for form in (moment, moment.isoformat()):
        found = _outcome(lambda: parse_time(form, field))  # noqa: B023 - called at once
        if isinstance(found, InvalidRequest):
            assert found.field == field
            continue
        assert isinstance(found, datetime)
        assert found == moment  # the same instant
        assert found.utcoffset() == timedelta(0)


@given(st.dates(min_value=date(9999, 12, 1)) | st.dates(max_value=date(1, 1, 31)))
def test_days_at_the_ends_of_the_calendar_are_bounds_or_invalid_requests(day: date) -> None:
    assert lower_bound(day, "since") is not None
    assert upper_bound(day, "until") is not None
    end = _outcome(lambda: upper_bound(day.isoformat(), "ended_at", exclusive=True))
    if isinstance(end, InvalidRequest):
        assert end.field == "ended_at"
        assert day == date.max
    else:
        assert end is not None
        assert end.date() > day
