"""One meaning for the times people type: the CLI, the workspace and the app parse here.

A time is a datetime (naive means UTC), a date, or ISO 8601 text of either. A bare day
names the whole UTC day:

- as a lower bound (``--since``, ``--from``, ``period_from``, ``start``) it is the
  day's midnight, so the day is in;
- as an upper bound (``--until``, ``--to``, ``period_to``, ``end``) the whole day is in
  as well: an inclusive bound becomes the day's last microsecond, an exclusive one
  (a summary's end) the next midnight.

A datetime is taken exactly as given, then converted to UTC. Whatever the input, the
answer is a time or an ``InvalidRequest`` naming the field: text longer than any ISO
8601 time, a year past 9999, an offset that moves a time out of years 1–9999 in UTC
(``0001-01-01T00:00:00+14:00``), or the end of 9999-12-31 as an exclusive bound (the next
midnight does not exist) are all refused in one line. The HTTP API does not come here: it keeps ISO
datetimes as sent (``toolkit/requests/fields.py``).

A source's own time zone (``Source.timezone``) is written as an IANA name
(``Europe/Berlin``) or a fixed offset (``+09:00``): ``zone_name`` checks and writes
it in that one form, ``zone_of`` turns it into a ``tzinfo`` (UTC when there is none).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolkit.errors import InvalidRequest, quoted
from toolkit.models import utc

When = datetime | date | str
"""A moment as a user may give it: a datetime (naive is UTC), a date, or ISO 8601 text."""

_DAY = timedelta(days=1)
_INSTANT = timedelta(microseconds=1)
MAX_TIME_TEXT = 64
"""The longest time text read (``2026-10-26T09:30:00.123456+03:00`` has 32 characters)."""


def _in_utc(value: datetime, field: str, shown: str) -> datetime:
    # An offset can push a representable local time out of datetime's range in UTC
    # (0001-01-01T00:00:00+14:00): the input's fault, said in one line as /v1 says it.
    try:
        converted = utc(value)
        converted.timestamp()  # the stores keep seconds since the epoch
    except (OverflowError, ValueError):
        message = f"{shown} is out of range once converted to UTC (years 1 to 9999)"
        raise InvalidRequest(message, field=field) from None
    return converted


def parse_time(value: When, field: str) -> datetime | date:
    """A user's time as a tz-aware UTC datetime, or a ``date`` when it is a bare day.

    Args:
        value: a datetime (naive is UTC), a date, or ISO 8601 text of either
            (``2026-10-26``, ``2026-10-26T09:30``, ``2026-10-26T09:30:00+03:00``, ``…Z``).
        field: the argument's name, for the error.

    Raises:
        InvalidRequest: text that is no ISO 8601 date or datetime, or a time out of
            range once converted to UTC.
    """
    if isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_TIME_TEXT:
            message = f"{quoted(text)} is too long for an ISO 8601 date or datetime"
            raise InvalidRequest(message, field=field)
        try:
            # fromisoformat stops reading at a NUL ("…10:00\x00garbage" parses): printable
            # ASCII only, as ISO 8601 writes it.
            if not (text.isascii() and text.isprintable()):
                raise ValueError(text)
            if len(text) == 10:
                return date.fromisoformat(text)
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            message = f"{quoted(text)} is not an ISO 8601 date or datetime"
            raise InvalidRequest(message, field=field) from None
        return _in_utc(parsed, field, quoted(text))
    if isinstance(value, datetime):
        return _in_utc(value, field, value.isoformat())
    return value


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def lower_bound(value: When | None, field: str) -> datetime | None:
    """The first moment a lower bound lets in: a bare day is its midnight (UTC).

    Raises:
        InvalidRequest: text that is no ISO 8601 date or datetime.
    """
    if value is None:
        return None
    found = parse_time(value, field)
    return found if isinstance(found, datetime) else _midnight(found)


def upper_bound(value: When | None, field: str, *, exclusive: bool = False) -> datetime | None:
    """An upper bound; a bare day is included whole.

    Args:
        value: the bound as the user gave it, or ``None``.
        field: the argument's name, for the error.
        exclusive: the caller compares ``posted_at < bound`` (a bare day becomes the next
            midnight); otherwise ``posted_at <= bound`` (the day's last microsecond).

    Raises:
        InvalidRequest: text that is no ISO 8601 date or datetime; 9999-12-31 as an
            exclusive bound.
    """
    if value is None:
        return None
    found = parse_time(value, field)
    if isinstance(found, datetime):
        return found
    if not exclusive:  # the day's last microsecond: 9999-12-31 included, no overflow
        return _midnight(found) + (_DAY - _INSTANT)
    try:
        return _midnight(found) + _DAY
    except OverflowError:
        message = (
            f"{found.isoformat()} is the calendar's last day: the midnight that ends it "
            "is out of range; give a datetime such as 9999-12-31T23:59:59Z"
        )
        raise InvalidRequest(message, field=field) from None


def search_period(
    period_from: When | None, period_to: When | None
) -> tuple[datetime | None, datetime | None]:
    """A search's ``period_from`` and ``period_to`` as a person gave them (both inclusive;
    a bare day is in whole).

    Raises:
        InvalidRequest: text that is no ISO 8601 date or datetime.
    """
    return lower_bound(period_from, "period_from"), upper_bound(period_to, "period_to")


def summary_period(start: When | None, end: When | None) -> tuple[datetime, datetime]:
    """A summary's ``started_at`` and (exclusive) ``ended_at`` as a person gave them: a
    bare start day is its midnight, a bare end day is in whole.

    Raises:
        InvalidRequest: a bound missing, or text that is no ISO 8601 date or datetime.
    """
    started_at = lower_bound(start, "started_at")
    ended_at = upper_bound(end, "ended_at", exclusive=True)
    if started_at is None:
        raise InvalidRequest("started_at is required", field="started_at")
    if ended_at is None:
        raise InvalidRequest("ended_at is required", field="ended_at")
    return started_at, ended_at


_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)
_EARLIEST_OFFSET, _LATEST_OFFSET = timedelta(hours=-12), timedelta(hours=14)
_LONGEST_ZONE = 64  # IANA names have at most 30-odd characters; longer is no name


def offset_name(offset: timedelta) -> str:
    """A fixed UTC offset written as a zone: ``+03:00``, ``-05:30``, ``+00:00``."""
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"


def _unknown(value: str) -> InvalidRequest:
    return InvalidRequest(
        f"unknown time zone {quoted(value)}; use an IANA name such as Europe/Berlin "
        "or a UTC offset such as +03:00",
        field="timezone",
    )


def zone_name(value: str) -> str:
    """A time zone as it is stored: an IANA name as given (``Europe/Berlin``), or a fixed
    offset in one form (``+3``, ``+0300``, ``UTC+03:00`` are all ``+03:00``).

    Raises:
        InvalidRequest: an empty value, an unknown zone, or an offset beyond
            -12:00..+14:00 (``field="timezone"``).
    """
    text = value.strip()
    found = _OFFSET.match(text)
    if found is not None:
        sign, hours, minutes = found.groups()
        offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
        offset = -offset if sign == "-" else offset
        if int(minutes or 0) >= 60 or not _EARLIEST_OFFSET <= offset <= _LATEST_OFFSET:
            raise _unknown(value)
        return offset_name(offset)
    if len(text) > _LONGEST_ZONE:
        raise _unknown(value)
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:  # OSError: "Europe" a folder
        raise _unknown(value) from exc
    return text


def zone_of(value: str | None) -> tzinfo:
    """The ``tzinfo`` of a zone name: ``None`` (or empty) is UTC, ``"+09:00"`` is
    ``timezone(timedelta(hours=9))``, ``"Europe/Berlin"`` is ``ZoneInfo("Europe/Berlin")``.

    Raises:
        InvalidRequest: an unknown zone (``field="timezone"``).
    """
    if value is None or not value.strip():
        return UTC
    name = zone_name(value)
    if name[0] in "+-":
        hours, minutes = int(name[1:3]), int(name[4:6])
        offset = timedelta(hours=hours, minutes=minutes)
        return timezone(-offset if name[0] == "-" else offset)
    return ZoneInfo(name)
