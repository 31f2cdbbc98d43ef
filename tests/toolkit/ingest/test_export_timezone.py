"""Each imported source learns its own time zone: the exporter's most common offset, or the
zone ``--timezone`` names; a re-import keeps it unless it learns another."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from export_builders import LOCAL, account, chat, message, when, write
from store_backends import Store

from toolkit.ingest import import_export
from toolkit.ingest.export.times import LocalTimes
from toolkit.models import Source

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL


def team(*messages: dict[str, Any], id_: int = 1_555_000_001) -> dict[str, Any]:
    return chat(list(messages), name="Team", type_="private_supergroup", id_=id_)


def at(mid: int, offset: timedelta) -> dict[str, Any]:
    """A message whose ``date`` the exporter wrote at ``offset`` from UTC."""
    return message(mid, f"m{mid}") | {"date": (when(mid) + offset).replace(tzinfo=None).isoformat()}


def sources(store: Store) -> dict[int | None, Source]:
    return {s.source.internal_id: s.source for s in store.list_sources()}


def only(store: Store) -> Source:
    (stats,) = store.list_sources()
    return stats.source


def test_the_exporters_offset_is_the_sources_zone(store: Store, tmp_path: Path) -> None:
    assert timedelta(hours=3) == LOCAL  # the builders' exporter
    import_export(store, write(tmp_path / "a.json", team(message(1, "a"), message(2, "b"))))
    assert only(store).timezone == "+03:00"


def test_the_most_common_offset_wins(store: Store, tmp_path: Path) -> None:
    summer, winter = timedelta(hours=2), timedelta(hours=1)
    export = team(at(1, winter), at(2, summer), at(3, summer), at(4, timedelta(hours=-5)))
    import_export(store, write(tmp_path / "a.json", export))
    assert only(store).timezone == "+02:00"


def test_a_named_zone_wins_and_a_reimport_keeps_it_unless_it_learns_another(
    store: Store, tmp_path: Path
) -> None:
    path = write(tmp_path / "a.json", team(message(1, "a")))
    import_export(store, path, timezone="Europe/Moscow")
    assert only(store).timezone == "Europe/Moscow"
    # Moscow was at +03:00 then, as the exporter's clock: nothing new is learned.
    import_export(store, path)
    assert only(store).timezone == "Europe/Moscow"
    # An export without date_unixtime learns nothing: the zone stays.
    old = team(message(1, "a", unixtime=False), message(2, "b", unixtime=False))
    import_export(store, write(tmp_path / "old.json", old), timezone=None)
    assert only(store).timezone == "Europe/Moscow"
    # An exporter at another offset is news.
    import_export(store, write(tmp_path / "b.json", team(at(3, timedelta(hours=9)))))
    assert only(store).timezone == "+09:00"
    import_export(store, path, timezone="+05:30")  # an offset may be named too
    assert only(store).timezone == "+05:30"


def test_every_chat_of_a_full_account_export_gets_it(store: Store, tmp_path: Path) -> None:
    export = account(
        [team(message(1, "a"), id_=11), team(message(1, "b"), id_=12)],
        left=[team(message(1, "c"), id_=13)],
    )
    import_export(store, write(tmp_path / "all.json", export))
    assert {k: s.timezone for k, s in sources(store).items()} == dict.fromkeys(
        (11, 12, 13), "+03:00"
    )


def test_a_source_imported_before_any_zone_gets_one_and_sync_keeps_it(
    store: Store, tmp_path: Path
) -> None:
    old = team(message(1, "a", unixtime=False))
    import_export(store, write(tmp_path / "old.json", old))
    assert only(store).timezone is None  # nothing to learn from
    import_export(store, write(tmp_path / "new.json", team(message(2, "b"))))
    source = only(store)
    assert source.timezone == "+03:00"
    # A later upsert that names no zone (a live sync) leaves it.
    store.upsert_source(title=source.title, kind=source.kind, internal_id=source.internal_id)
    assert only(store).timezone == "+03:00"


def test_local_times_reasoning_on_its_own() -> None:
    times = LocalTimes()
    assert times.source_zone(None) is None  # nothing seen yet
    for mid in (1, 2):
        times.read(message(mid, "x"), "date")
    assert times.source_zone(None) == "+03:00"
    assert times.source_zone("Europe/Moscow") is None  # agrees: the name says more
    assert times.source_zone("Europe/Berlin") == "+03:00"
    assert times.source_zone("Not/AZone") == "+03:00"
    assert LocalTimes(tz=timezone(timedelta(hours=-4))).source_zone("UTC") == "-04:00"
