"""Dates of exported messages: ``date_unixtime`` when present, else a local ``date``.

Telegram Desktop writes ``date`` as the exporting machine's local time without an
offset; newer versions add ``date_unixtime`` (UTC seconds), older ones do not. A lone
``date`` is read, in this order of preference:

1. in the time zone the user names (``--timezone Europe/Moscow``, an IANA name);
2. with the offset learned from messages of the same file that carry both fields;
3. as UTC, counted, so that the import can say once how many were read that way.

A date outside the messenger's lifetime (before 2013, or days in the future) is no real
message time: ``ImpossibleDate`` lets the importer skip and report the message.

The same two fields tell each imported source its own time zone (``Source.timezone``,
``LocalTimes.source_zone``): the exporter's most common UTC offset across the file, unless
the user named a zone, or the source's stored zone already agrees with it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from toolkit.errors import InvalidRequest
from toolkit.timeparse import offset_name, zone_of

EARLIEST = datetime(2013, 8, 1, tzinfo=UTC)
"""Before the messenger's launch: no message can be older."""
FUTURE_SLACK = timedelta(days=2)
_QUARTER_HOUR = 15 * 60
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
_MIN_OFFSET, _MAX_OFFSET = -12 * 3600, 14 * 3600


def _count(messages: int) -> str:
    return f"{messages} message had" if messages == 1 else f"{messages} messages had"


class ImpossibleDate(ValueError):
    """A message date the messenger cannot have written (skipped and reported)."""


def zone(name: str | None) -> tzinfo | None:
    """The time zone ``name`` names: an IANA name or a fixed offset such as ``+03:00``
    (``None`` for none).

    Raises:
        InvalidRequest: an unknown zone name (``field="timezone"``).
    """
    if name is None or not name.strip():
        return None
    return zone_of(name)


def _agrees(stored: str, offset: timedelta, moment: datetime) -> bool:
    """Whether the zone ``stored`` was at ``offset`` from UTC at ``moment``."""
    try:
        return zone_of(stored).utcoffset(moment) == offset
    except InvalidRequest:
        return False


def _zone_label(tz: tzinfo) -> str | None:
    """A fixed-offset ``tzinfo``'s name (``+03:00``); ``None`` for any other."""
    offset = tz.utcoffset(None)
    return offset_name(offset) if offset is not None else None


_UNIX_KEYS = {"date": "date_unixtime", "edited": "edited_unixtime"}


def _unix(unix: Any, key: str) -> datetime:
    """The UTC moment of a ``<key>_unixtime`` value (not ``None``): seconds as a string
    (the JSON export) or a number, or the aware UTC moment itself (the HTML reader's,
    worked out from the date it read: nothing to convert)."""
    if type(unix) is datetime and unix.tzinfo is UTC:
        return unix
    if isinstance(unix, str) and (unix.isdigit() or unix.strip().lstrip("-").isdigit()):
        unix = int(unix)
    if isinstance(unix, bool) or not isinstance(unix, (int, float)):
        raise ValueError(f"'{key}_unixtime' is not a number of seconds: {unix!r}")
    try:
        if isinstance(unix, int):  # without the C library's gmtime, nor keywords to parse
            return _EPOCH + _SECOND * unix
        return datetime.fromtimestamp(unix, tz=UTC)
    except (OverflowError, OSError, ValueError) as exc:
        raise ImpossibleDate(f"'{key}_unixtime' {unix!r} is out of range") from exc


def _local(local: Any, key: str) -> datetime:
    """The local time of a ``<key>`` value (not ``None``): an ISO 8601 string, or the
    ``datetime`` it reads as (what the HTML reader hands over, read once already)."""
    if type(local) is datetime:
        return local
    if not isinstance(local, str):
        raise ValueError(f"'{key}' is not an ISO 8601 string: {local!r}")
    try:
        return datetime.fromisoformat(local)
    except ValueError as exc:
        raise ValueError(f"'{key}' is not an ISO 8601 date: {local!r}") from exc


@dataclass
class LocalTimes:
    """Reads message dates of one import; learns the exporter's offset as it goes.

    Args:
        tz: the zone lone ``date`` values are in, when the user named one.
        now: the present, for the "not in the future" check (tests fix it).
    """

    tz: tzinfo | None = None
    now: datetime | None = None
    offset: timedelta | None = None
    read_as_utc: int = 0
    read_in_zone: int = 0
    read_with_offset: int = 0
    offsets: Counter[timedelta] = field(default_factory=Counter)
    """How many messages showed each offset (a file spans summer and winter time), up
    to the current run of messages (``settle`` adds it)."""
    seen_at: dict[timedelta, datetime] = field(default_factory=dict)
    """The latest moment each offset was seen at, up to the current run (``settle``)."""
    _latest: datetime | None = field(default=None, init=False, repr=False, compare=False)
    """The latest possible date as last computed (it only grows: a date not after it
    is not in the future; a later one is checked against the present again)."""
    _run: list[Any] | None = field(default=None, init=False, repr=False, compare=False)
    """The current run of messages that showed one local-minus-UTC difference:
    ``[difference, its offset, messages not yet in offsets, latest moment]``. A file's
    messages mostly share one, so each message only counts itself in here, and the run
    is added to ``offsets`` and ``seen_at`` when another difference begins (``settle``)."""

    def read(self, raw: dict[str, Any], key: str) -> datetime | None:
        """The UTC moment of ``key`` (``date``, ``edited``) of a message, or ``None``.

        Raises:
            ImpossibleDate: a date before 2013 or in the future.
            ValueError: a malformed value.
        """
        # Each field looked up once: this runs twice for every message of an import.
        value, unix = raw.get(key), raw.get(_UNIX_KEYS.get(key) or f"{key}_unixtime")
        if unix is not None:  # nearly every message
            exact = _unix(unix, key)
            if value is not None:
                local = _local(value, key)
                if key == "date" and local.tzinfo is None:
                    self._learn(local, exact)
            return self._check(exact, key)
        if value is None:
            return None  # the usual "edited" of a message never edited
        local = _local(value, key)
        try:
            if local.tzinfo is not None:
                moment = local.astimezone(UTC)
            elif self.tz is not None:
                moment = local.replace(tzinfo=self.tz).astimezone(UTC)
                self.read_in_zone += key == "date"
            elif self.offset is not None:
                moment = (local - self.offset).replace(tzinfo=UTC)
                self.read_with_offset += key == "date"
            else:
                moment = local.replace(tzinfo=UTC)
                self.read_as_utc += key == "date"
        except OverflowError as exc:
            raise ImpossibleDate(f"'{key}' {value!r} is out of range") from exc
        return self._check(moment, key)

    def _learn(self, local: datetime, exact: datetime) -> None:
        # ``local.replace(tzinfo=UTC) - exact``, without replace's keyword parsing
        difference = (local - _NAIVE_EPOCH) - (exact - _EPOCH)
        run = self._run
        if run is not None and run[0] == difference:  # the same as the message before
            run[2] += 1
            if exact > run[3]:
                run[3] = exact
            return
        seconds = difference.total_seconds()
        if not _MIN_OFFSET <= seconds <= _MAX_OFFSET:
            return  # no time zone is that far off: a date edited by hand, not an offset
        self.settle()
        # Offsets are whole quarter hours; anything else is a clock the exporter lacked.
        offset = timedelta(seconds=round(seconds / _QUARTER_HOUR) * _QUARTER_HOUR)
        self.offset = offset
        self._run = [difference, offset, 1, exact]

    def settle(self) -> None:
        """Add the current run of messages to ``offsets`` and ``seen_at``."""
        run = self._run
        if run is None or not run[2]:
            return
        offset, latest = run[1], run[3]
        self.offsets[offset] += run[2]
        run[2] = 0
        seen = self.seen_at.get(offset)
        if seen is None or latest > seen:
            self.seen_at[offset] = latest

    def source_zone(self, stored: str | None) -> str | None:
        """The zone to record for a source of this file that now has ``stored``; ``None``
        keeps it. A zone the user named wins; else the exporter's most common offset
        (``+03:00``), unless ``stored`` was at that offset then (an IANA zone such as
        ``Europe/Moscow`` says more than its offset)."""
        if self.tz is not None:
            return getattr(self.tz, "key", None) or _zone_label(self.tz)
        self.settle()
        if not self.offsets:
            return None
        offset = self.offsets.most_common(1)[0][0]
        if stored is not None and _agrees(stored, offset, self.seen_at[offset]):
            return None
        return offset_name(offset)

    def _check(self, moment: datetime, key: str) -> datetime:
        latest = self._latest
        if self.now is not None or latest is None or moment > latest:
            latest = (self.now or datetime.now(UTC)) + FUTURE_SLACK
            self._latest = None if self.now is not None else latest
        if not EARLIEST <= moment <= latest:
            raise ImpossibleDate(f"impossible '{key}' {moment.isoformat()}")
        return moment

    def notes(self) -> list[str]:
        """One line per way lone dates were read, for the import report."""
        out = []
        if self.read_in_zone:
            out.append(f"{_count(self.read_in_zone)} no date_unixtime: read in {self.tz}")
        if self.read_with_offset and self.offset is not None:
            hours = self.offset.total_seconds() / 3600
            out.append(
                f"{_count(self.read_with_offset)} no date_unixtime: read at UTC{hours:+g} h "
                "(the offset of messages that carry both dates)"
            )
        if self.read_as_utc:
            out.append(
                f"{_count(self.read_as_utc)} no date_unixtime and were read as UTC "
                "(give --timezone to read them as local time)"
            )
        return out
