"""A source's own time zone, inferred from when its people write (``toolkit.zones``):
the quiet hours are night; set > inferred > export > UTC."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from export_builders import chat, write
from store_backends import Store

from toolkit.ingest import import_export
from toolkit.models import Message, Source, SourceKind
from toolkit.zones import (
    MIN_SLOTS,
    SOCIAL_DAY,
    WORKING_DAY,
    infer_offset,
    settle_zone,
    trough,
    zone_label,
)

pytestmark = pytest.mark.both_stores  # the tests with a store run on SQLite and PostgreSQL

START = datetime(2025, 1, 6, tzinfo=UTC)


def utc_hours(shape: Sequence[float], offset: int, scale: int = 60) -> list[int]:
    """Slots by UTC hour of people who live ``offset`` hours from UTC and write as
    ``shape`` says (by their local hour)."""
    return [round(scale * shape[(utc + offset) % 24]) for utc in range(24)]


@pytest.mark.parametrize("offset", [-8, -5, -4, 0, 2, 3, 8, 10])
def test_a_social_chat_is_placed_where_its_nights_are(offset: int) -> None:
    assert infer_offset(utc_hours(SOCIAL_DAY, offset), days=60) == timedelta(hours=offset)


@pytest.mark.parametrize("offset", [-5, 1, 3])
def test_a_working_chat_is_not_pushed_east_by_its_long_evening(offset: int) -> None:
    # Quiet from 19:00 to 08:00: a trough centred on 04:00 would say offset + 3.
    assert infer_offset(utc_hours(WORKING_DAY, offset), days=60) == timedelta(hours=offset)


def test_a_shifted_late_rhythm_lands_within_an_hour() -> None:
    # Students who sleep from 03:00 to 09:00 local, at UTC+3.
    late = SOCIAL_DAY[-2:] + SOCIAL_DAY[:-2]
    found = infer_offset(utc_hours(late, 3), days=60)
    assert found is not None
    assert abs(found - timedelta(hours=3)) <= timedelta(hours=2)


def test_no_clear_night_no_zone() -> None:
    # People on several continents: every hour about as busy.
    flat = [40 + (h % 3) for h in range(24)]
    assert trough(flat) > 0.9
    assert infer_offset(flat, days=60) is None


def test_too_little_activity_no_zone() -> None:
    hours = utc_hours(SOCIAL_DAY, 2)
    assert infer_offset(hours, days=2) is None  # a two-day burst has no daily rhythm
    few = utc_hours(SOCIAL_DAY, 2, scale=5)
    assert sum(few) < MIN_SLOTS
    assert infer_offset(few, days=60) is None


def test_hours_must_be_a_day() -> None:
    with pytest.raises(ValueError, match="24 hours"):
        infer_offset([1] * 23, days=60)


@pytest.mark.parametrize(
    ("name", "label"),
    [("+02:00", "UTC+2"), ("-05:00", "UTC-5"), ("+05:30", "UTC+5:30"), ("+00:00", "UTC"),
     (None, "UTC"), ("Europe/Kyiv", "Europe/Kyiv")],
)  # fmt: skip
def test_zone_labels(name: str | None, label: str) -> None:
    assert zone_label(name) == label


def local_life(offset: int, days: int = 30, people: int = 6, seed: int = 7) -> list[datetime]:
    """UTC moments of messages of ``people`` who live ``offset`` hours from UTC and write
    as a social chat does, over ``days`` days."""
    rng = random.Random(seed)
    hours = list(range(24))
    moments = []
    for day in range(days):
        for _ in range(people * 4):
            local = rng.choices(hours, weights=SOCIAL_DAY)[0]
            moment = START + timedelta(days=day, hours=local - offset, minutes=rng.randrange(60))
            moments.append(moment)
    return sorted(moments)


def messages_of(source: Source, moments: list[datetime]) -> list[Message]:
    return [
        Message(source.id, i, at, f"note {i}", sender_peer_id=f"user{i % 6}",
                sender_name=f"Member {i % 6}")
        for i, at in enumerate(moments, 1)
    ]  # fmt: skip


def group(store: Store, zone: str | None, origin: Any, offset: int = 2) -> Source:
    source = store.upsert_source(
        title="Help", kind=SourceKind.CHAT, internal_id=9, timezone=zone, timezone_origin=origin
    )
    store.upsert_messages(messages_of(source, local_life(offset)))
    return store.get_source_by_id(source.id)


def test_activity_hours_count_each_persons_hour_once(store: Store) -> None:
    source = store.upsert_source(title="Burst", kind=SourceKind.CHAT, internal_id=3)
    at = START + timedelta(hours=5)
    burst = [Message(source.id, i, at + timedelta(minutes=i), "x", sender_peer_id="u1")
             for i in range(1, 30)]  # fmt: skip
    store.upsert_messages([*burst, Message(source.id, 99, at, "y", sender_peer_id="u2")])
    hours, days = store.activity_hours(source.id)
    assert (hours[5], sum(hours), days) == (2, 2, 1)


def test_the_inferred_zone_wins_over_the_exporters(store: Store) -> None:
    source = group(store, "-05:00", "export")
    settled = settle_zone(store, source)
    assert (settled.timezone, settled.timezone_origin) == ("+02:00", "inferred")
    assert store.get_source_by_id(source.id).timezone_origin == "inferred"


def test_a_set_zone_wins_over_the_inferred(store: Store) -> None:
    source = group(store, "Asia/Tokyo", "set")
    assert settle_zone(store, source) == source


def test_a_zone_the_activity_confirms_stays_as_it_is(store: Store) -> None:
    # Kyiv is at +02:00 in winter: the name says more (summer time) than the offset.
    source = group(store, "Europe/Kyiv", "export")
    assert settle_zone(store, source) == source
    # An export's offset an hour off is within what the rough day shapes tell apart.
    near = store.set_source_timezone(source.id, "+03:00", "export")
    assert settle_zone(store, near) == near


def test_a_known_offset_that_fits_nearly_as_well_is_kept() -> None:
    hours = utc_hours(SOCIAL_DAY, 2)
    assert infer_offset(hours, 60, known=[timedelta(hours=3)]) == timedelta(hours=3)
    assert infer_offset(hours, 60, known=[timedelta(hours=-5)]) == timedelta(hours=2)
    half = timedelta(hours=2, minutes=30)
    assert infer_offset(hours, 60, known=[half]) == half


def test_what_is_known_is_kept_when_activity_does_not_tell(store: Store) -> None:
    source = store.upsert_source(
        title="Tiny", kind=SourceKind.CHAT, internal_id=4, timezone="-05:00",
        timezone_origin="export",
    )  # fmt: skip
    store.upsert_messages(messages_of(source, local_life(2, days=2, people=1)))
    assert settle_zone(store, source).timezone == "-05:00"


def test_an_import_infers_the_groups_zone_not_the_exporters(store: Store, tmp_path: Path) -> None:
    # A group in Kyiv exported on a machine at -05:00: the six hours off.
    exporter = timedelta(hours=-5)
    messages = [
        {"id": i, "type": "message", "date": (at + exporter).replace(tzinfo=None).isoformat(),
         "date_unixtime": str(int(at.timestamp())), "from": f"Member {i % 6}",
         "from_id": f"user{i % 6}", "text": f"note {i}"}
        for i, at in enumerate(local_life(2), 1)
    ]  # fmt: skip
    path = write(
        tmp_path / "result.json", chat(messages, name="Help", type_="private_group", id_=77)
    )
    report = import_export(store, path)
    (imported,) = report.sources
    assert (imported.source.timezone, imported.source.timezone_origin) == ("+02:00", "inferred")
    (stats,) = store.list_sources()
    assert stats.source.timezone == "+02:00"
    # A zone the user sets survives the next import.
    store.set_source_timezone(stats.source.id, "Europe/Kyiv")
    import_export(store, path)
    assert store.get_source_by_id(stats.source.id).timezone == "Europe/Kyiv"


def test_a_small_import_keeps_the_exporters_offset(store: Store, tmp_path: Path) -> None:
    moments = local_life(2, days=2, people=1)
    messages = [
        {"id": i, "type": "message", "date": (at - timedelta(hours=5)).replace(tzinfo=None)
         .isoformat(), "date_unixtime": str(int(at.timestamp())), "from": "A",
         "from_id": "user1", "text": "x"}
        for i, at in enumerate(moments, 1)
    ]  # fmt: skip
    import_export(
        store, write(tmp_path / "r.json", chat(messages, name="S", type_="private_group", id_=5))
    )
    (stats,) = store.list_sources()
    assert (stats.source.timezone, stats.source.timezone_origin) == ("-05:00", "export")
