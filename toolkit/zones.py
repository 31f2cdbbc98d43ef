"""A source's own time zone, from when its people write: their quiet hours are night.

A JSON or HTML export's offset is the exporting machine's, not the chat's: a group in
Kyiv exported on a laptop in Toronto carries ``-05:00``. The members' activity says more.
``infer_offset`` takes the hours they write in (UTC; ``MessageStore.activity_hours``
counts (sender, hour) slots, so that one person's burst of messages counts once) and
finds the whole-hour UTC offset under which they look likeliest as a day of people's
lives: either a social chat's day (quiet from about 01:00 to 07:00, the evening busy)
or a working chat's day (quiet from the evening to about 08:00). Two shapes, because a
work chat's trough is the whole evening and night: aligning a trough alone with 02:00 to
06:00 puts such a chat hours east of its people.

Nothing is inferred without evidence: at least ``MIN_SLOTS`` slots on ``MIN_DAYS`` days
(a two-day burst shows no daily rhythm), and a clear trough: the quietest four hours in
a row hold at most ``MAX_TROUGH`` of an average four hours' share (a group whose people
live on several continents has none).

Precedence (``settle_zone``): a zone set by the user (``mlens timezone``) > one inferred
from activity > the export's offset > UTC. The export's offset is prior knowledge: it
stays when the activity fits it nearly as well as the best offset (the shapes are rough,
an hour either way), and gives way where the activity clearly disagrees. An inferred zone
is written as the offset it is (``+02:00``, shown as "UTC+2"): an offset names no city,
and several share each one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from toolkit.errors import InvalidRequest
from toolkit.models import Source
from toolkit.store.base import MessageStore
from toolkit.timeparse import offset_name, zone_of

# Relative activity by local hour (0..23): shapes of a day, not fitted to any chat.
SOCIAL_DAY = (
    0.45, 0.25, 0.12, 0.06, 0.04, 0.05, 0.12, 0.30, 0.55, 0.75, 0.85, 0.90,
    0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 1.00, 1.00, 0.95, 0.85, 0.65,
)  # fmt: skip
"""A chat of friends, neighbours, a community: night from about 01:00 to 07:00."""
WORKING_DAY = (
    0.05, 0.03, 0.02, 0.02, 0.02, 0.02, 0.05, 0.15, 0.50, 0.90, 1.00, 1.00,
    0.95, 1.00, 1.00, 1.00, 0.95, 0.80, 0.50, 0.30, 0.20, 0.15, 0.10, 0.07,
)  # fmt: skip
"""A chat of colleagues (or a channel posted in office hours): quiet outside 08:00–19:00."""
DAYS = (SOCIAL_DAY, WORKING_DAY)
FLOOR = 0.01
"""Added to every hour of a shape: someone is always awake somewhere."""
OFFSETS = range(-12, 15)
"""Whole-hour offsets considered, UTC-12 to UTC+14."""
AUTO_ZONE = "auto"
"""What ``mlens timezone REF auto`` names: no zone set, the inferred one."""
MIN_SLOTS = 200
MIN_DAYS = 7
MAX_TROUGH = 0.3
TROUGH_HOURS = 4
KNOWN_MARGIN = 0.03
"""Log-likelihood per slot within which a known offset fits as well as the best: about
an hour's shift of a night for these rough shapes."""


def _log_shape(shape: Sequence[float]) -> list[float]:
    total = sum(shape) + FLOOR * len(shape)
    return [math.log((value + FLOOR) / total) for value in shape]


_LOG_DAYS = [_log_shape(shape) for shape in DAYS]


def trough(hours: Sequence[int]) -> float:
    """How quiet the quietest ``TROUGH_HOURS`` hours in a row are, as a share of an
    average stretch of as many hours (0: silent; 1: no quieter than any other)."""
    total = sum(hours)
    if not total:
        return 1.0
    quietest = min(sum(hours[(s + i) % 24] for i in range(TROUGH_HOURS)) for s in range(24))
    return quietest / (total * TROUGH_HOURS / 24)


def _likelihood(hours: Sequence[int], offset: int) -> float:
    """The log-likelihood of ``hours`` (by UTC hour) under the likelier day shape, were
    the people at ``offset`` hours from UTC."""
    return max(
        sum(count * shape[(utc + offset) % 24] for utc, count in enumerate(hours))
        for shape in _LOG_DAYS
    )


def _fit(hours: Sequence[int], offset: timedelta) -> float:
    """How well ``hours`` fit a day at ``offset`` (per slot; a half-hour offset as well
    as the better of its two whole hours)."""
    whole = offset.total_seconds() / 3600
    return max(_likelihood(hours, h) for h in {math.floor(whole), math.ceil(whole)})


def infer_offset(
    hours: Sequence[int], days: int, *, known: Sequence[timedelta] = ()
) -> timedelta | None:
    """The UTC offset a source's people most likely live at, or ``None`` when their
    activity does not tell (too little of it, or no quiet night).

    Args:
        hours: for each UTC hour 0..23, the (sender, hour) slots with a message.
        days: on how many days anyone wrote.
        known: offsets already known for the source (its stored zone's, in winter and in
            summer): one that fits nearly as well as the best (within ``KNOWN_MARGIN``
            per slot: the day shapes are rough) is kept, activity overriding it only
            where it clearly disagrees.

    Returns:
        A whole number of hours from UTC (-12..+14), or a ``known`` offset, or ``None``.
    """
    if len(hours) != 24:
        raise ValueError(f"24 hours of activity expected, not {len(hours)}")
    slots = sum(hours)
    if slots < MIN_SLOTS or days < MIN_DAYS or trough(hours) > MAX_TROUGH:
        return None
    # Ties go to the offset nearest UTC: deterministic, and the least surprising.
    best = max(OFFSETS, key=lambda o: (_likelihood(hours, o), -abs(o)))
    top = _likelihood(hours, best)
    near = [k for k in known if _fit(hours, k) >= top - KNOWN_MARGIN * slots]
    if near:
        return max(near, key=lambda k: _fit(hours, k))
    return timedelta(hours=best)


def _offsets(name: str | None) -> list[timedelta]:
    """The offsets zone ``name`` is at, in winter and in summer (none: unknown)."""
    if not name:
        return []
    try:
        tz = zone_of(name)
    except InvalidRequest:
        return []
    year = datetime.now(UTC).year
    found = (tz.utcoffset(datetime(year, month, 1)) for month in (1, 7))
    return list(dict.fromkeys(o for o in found if o is not None))


def settle_zone(store: MessageStore, source: Source) -> Source:
    """Record the zone ``source``'s people live in, inferred from its stored messages,
    unless the user set one. What is known stays when activity does not tell, or when
    it agrees (an export's ``+03:00`` its people's night confirms is still the export's;
    an IANA name says more than its offset)."""
    if source.timezone_origin == "set":
        return source
    known = _offsets(source.timezone)
    offset = infer_offset(*store.activity_hours(source.id), known=known)
    if offset is None or offset in known:
        return source
    return store.set_source_timezone(source.id, offset_name(offset), "inferred")


def zone_label(name: str | None) -> str:
    """A zone as a reader sees it: ``+02:00`` is "UTC+2", ``-03:30`` "UTC-3:30", an
    IANA name itself, none "UTC"."""
    if not name:
        return "UTC"
    if name[0] not in "+-" or len(name) != 6:
        return name
    hours, minutes = int(name[1:3]), name[4:6]
    if not hours and minutes == "00":
        return "UTC"
    return f"UTC{name[0]}{hours}" + ("" if minutes == "00" else f":{minutes}")
