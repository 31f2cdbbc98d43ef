"""The summary cache: bounded by entries and bytes, least recently used out, written off
the request path."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_backends import Store, outside_query
from summary_data import START, in_period, seed

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.store import SQLiteStore
from toolkit.summarize.pipeline import summarize_period

T0 = datetime(2024, 1, 1, tzinfo=UTC)
TEAM = "@platform_team"  # a source of summary_data.seed
WEEK = timedelta(days=7)


def keys(store: Store) -> list[str]:
    return sorted(entry.key for entry in store.iter_cache())


@pytest.mark.both_stores
def test_entries_past_the_bound_go_least_recently_used_first(store: Store) -> None:
    for i, key in enumerate("abc"):
        store.cache_put(key, key * 10)
        store.cache_touch(key, T0 + timedelta(minutes=i))
    store.cache_touch("a", T0 + timedelta(hours=1))  # a hit: "a" is now the most recent
    assert store.cache_put("d", "d" * 10, max_entries=3) == 1
    assert keys(store) == ["a", "c", "d"]  # "b" was used least recently


@pytest.mark.both_stores
def test_bytes_past_the_bound_go_too_counted_in_utf8(store: Store) -> None:
    store.cache_put("old", "я" * 50)  # 100 bytes in UTF-8
    store.cache_touch("old", T0)
    store.cache_put("mid", "x" * 60)
    store.cache_touch("mid", T0 + timedelta(minutes=1))
    assert store.cache_put("new", "y" * 60, max_bytes=150) == 1  # 220 → 120 bytes
    assert keys(store) == ["mid", "new"]
    assert store.cache_put("huge", "z" * 200, max_bytes=150) == 0  # too large to keep at all
    assert keys(store) == ["mid", "new"]
    sizes = outside_query(store, "SELECT size FROM cache")  # type: ignore[arg-type]
    assert sorted(sizes) == [(60,), (60,)]


@pytest.mark.usefixtures("clean_env")
@pytest.mark.slow
def test_a_summary_is_cached_by_the_background_writer_not_the_request(
    store: SQLiteStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database={"path": ":memory:"}, summary={"cache_max_entries": 1}
    )
    store.cache_put("older", "an entry the bound of 1 pushes out")
    store.flush_writes()
    held: list[Callable[[], object]] = []
    submit = store.write_behind
    monkeypatch.setattr(store, "write_behind", lambda task: held.append(task) or True)
    answered = summarize_period(store, embedder, settings, in_period(TEAM, START, START + WEEK))
    assert answered.summary
    assert keys(store) == ["older"]  # the answer came before any cache write
    assert len(held) >= 1
    monkeypatch.setattr(store, "write_behind", submit)
    for task in held:
        task()
    (cached,) = keys(store)
    assert cached.startswith("summary:")  # written, and the bound of 1 held


@pytest.mark.usefixtures("clean_env")
def test_a_cache_hit_records_its_use_later(
    store: SQLiteStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    settings = Settings(_env_file=None, database={"path": ":memory:"})  # type: ignore[call-arg]
    request = in_period(TEAM, START, START + WEEK)
    summarize_period(store, embedder, settings, request)
    assert store.flush_writes()
    (key,) = keys(store)
    store.cache_touch(key, T0)
    touched = threading.Event()
    original = store.cache_touch
    monkeypatch.setattr(store, "cache_touch", lambda k, w=None: (original(k, w), touched.set()))
    summarize_period(store, embedder, settings, request)
    assert touched.wait(10)
    used = outside_query(store, "SELECT used_at FROM cache")[0][0]
    assert used > int(T0.timestamp())


def test_an_older_store_gets_use_times_and_sizes_for_its_entries(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    SQLiteStore(db).close()
    with sqlite3.connect(db) as conn:  # the cache table as m004 made it, with an entry
        conn.execute("DROP INDEX cache_by_use")
        conn.execute("ALTER TABLE cache DROP COLUMN used_at")
        conn.execute("ALTER TABLE cache DROP COLUMN size")
        conn.execute("DELETE FROM _migrations WHERE name = 'm007_cache_use'")
        conn.execute("INSERT INTO cache VALUES ('k', 'ключ', 1700000000)")
    store = SQLiteStore(db)
    try:
        rows = outside_query(store, "SELECT key, used_at, size FROM cache")
        assert rows == [("k", 1700000000, 8)]
        assert store.cache_put("n", "new", max_entries=1) == 1  # the old entry goes first
        assert keys(store) == ["n"]
    finally:
        store.close()
