"""One meaning for the times people type: the CLI, the workspace and the app parse here.

A time is a datetime (naive means UTC), a date, or ISO 8601 text of either. A bare day
names the whole UTC day:

- as a lower bound (``--since``, ``--from``, ``period_from``, ``start``) it is the
  day's midnight, so the day is in;
- as an upper bound (``--until``, ``--to``, ``period_to``, ``end``) the whole day is in
  as well: an inclusive bound becomes the day's last microsecond, an exclusive one
  (a summary's end) the next midnight.

A datetime is taken exactly as given. The HTTP API does not come here: it keeps ISO
datetimes as sent (``service/schemas.py``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from toolkit.errors import InvalidRequest
from toolkit.models import utc

When = datetime | date | str
"""A moment as a user may give it: a datetime (naive is UTC), a date, or ISO 8601 text."""

_DAY = timedelta(days=1)
_INSTANT = timedelta(microseconds=1)


def parse_time(value: When, field: str) -> datetime | date:
    """A user's time as a tz-aware UTC datetime, or a ``date`` when it is a bare day.

    Args:
        value: a datetime (naive is UTC), a date, or ISO 8601 text of either
            (``2026-10-26``, ``2026-10-26T09:30``, ``2026-10-26T09:30:00+03:00``, ``…Z``).
        field: the argument's name, for the error.

    Raises:
        InvalidRequest: text that is no ISO 8601 date or datetime.
    """
    if isinstance(value, str):
        text = value.strip()
        try:
            if len(text) == 10:
                return date.fromisoformat(text)
            return utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            message = f"{text!r} is not an ISO 8601 date or datetime"
            raise InvalidRequest(message, field=field) from None
    if isinstance(value, datetime):
        return utc(value)
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
        InvalidRequest: text that is no ISO 8601 date or datetime.
    """
    if value is None:
        return None
    found = parse_time(value, field)
    if isinstance(found, datetime):
        return found
    after = _midnight(found) + _DAY
    return after if exclusive else after - _INSTANT


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
