"""Times as users write them (a day, a datetime, an ISO 8601 string), made tz-aware UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from toolkit.errors import InvalidRequest
from toolkit.models import utc

When = datetime | date | str
"""A moment as a user may give it: a datetime (naive is UTC), a date, or ISO 8601 text."""


def moment(
    value: When | None, field: str, *, after_day: timedelta | None = None
) -> datetime | None:
    """A user's time as tz-aware UTC; ``None`` stays ``None``.

    Args:
        value: a datetime (naive is UTC), a date, or an ISO 8601 string of either.
        field: the argument's name, for the error.
        after_day: for an upper bound given as a bare day: the moment is the day's
            midnight plus this much (``timedelta(days=1)``: the whole day is inside).

    Raises:
        InvalidRequest: a string that is no ISO 8601 date or datetime.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            message = f"{text!r} is not an ISO 8601 date or datetime"
            raise InvalidRequest(message, field=field) from None
    if isinstance(value, datetime):
        return utc(value)
    midnight = datetime(value.year, value.month, value.day, tzinfo=UTC)
    return midnight + after_day if after_day is not None else midnight
