"""Backups of a live store and their restores (``toolkit.store.backup``): consistent
while an import, searches and other writes run; whole or absent when the backup process
is killed; a restore that refuses a store with data in it unless told, and lands all
or nothing."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchmarks.pg_server import PgServer
from benchmarks.synthetic import write_export
from toolkit.errors import InvalidRequest, StoreError
from toolkit.ingest import import_export
from toolkit.models import Message, NewApiKey, SourceKind
from toolkit.store import SQLiteStore, backup
from toolkit.store.backends import open_location
from toolkit.store.backup import backup_store, restore_store
from toolkit.store.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2024, 3, 1, 12, tzinfo=UTC)
FIRST, SECOND = 4_000_000_001, 4_000_000_002


def _seed(store: SQLiteStore | PostgresStore, tmp_path: Path, count: int = 3000) -> None:
    import_export(store, write_export(tmp_path / "first.json", count, chat_id=FIRST))


def _counts(location: str | Path) -> dict[int, int]:
    """Messages per source (by internal id) of the store at ``location``."""
    store = open_location(str(location))
    try:
        return {s.source.internal_id or 0: s.message_count for s in store.list_sources()}
    finally:
        store.close()


class _Load:
    """An import of a second chat, searches, and paired cache writes (``a<i>`` and
    ``b<i>`` in one transaction), all running until ``stop``."""

    def __init__(self, store: SQLiteStore | PostgresStore, tmp_path: Path) -> None:
        self.store = store
        self.export = write_export(tmp_path / "second.json", 2000, chat_id=SECOND, seed=1)
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.pairs = 0
        self.searches = 0
        self.threads = [
            threading.Thread(target=self._guard(self._import)),
            threading.Thread(target=self._guard(self._write)),
            threading.Thread(target=self._guard(self._search)),
        ]

    def _guard(self, work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except BaseException as exc:  # reported by stop()
                self.errors.append(exc)

        return run

    def _import(self) -> None:
        import_export(self.store, self.export)

    def _write(self) -> None:
        while not self.done.is_set():
            with self.store.transaction():
                self.store.cache_put(f"a{self.pairs}", "x" * 200)
                self.store.cache_put(f"b{self.pairs}", "y" * 200)
            self.pairs += 1

    def _search(self) -> None:
        source_id = self.store.list_sources()[0].source.id
        while not self.done.is_set():
            assert len(self.store.scan_window(source_id, 500)) == 500
            self.searches += 1

    def start(self) -> _Load:
        for thread in self.threads:
            thread.start()
        return self

    def stop(self) -> None:
        self.done.set()
        for thread in self.threads:
            thread.join(120)
        assert self.errors == []


def _assert_consistent(path: Path) -> None:
    """The backup holds the first chat whole, the second whole or not at all, and every
    pair of cache entries whole or not at all."""
    counts = _counts(path)
    assert counts[FIRST] == 3000
    assert counts.get(SECOND, 2000) == 2000
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
        keys = {row[0] for row in db.execute("SELECT key FROM cache")}
    assert {k[1:] for k in keys if k[0] == "a"} == {k[1:] for k in keys if k[0] == "b"}


@pytest.mark.slow
def test_a_backup_of_a_live_sqlite_store_is_consistent_while_writes_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backup, "STEP_PAGES", 16)  # many steps, each a chance to write
    store = SQLiteStore(tmp_path / "live.sqlite3")
    steps: list[tuple[int, int]] = []
    try:
        _seed(store, tmp_path)
        load = _Load(store, tmp_path).start()
        try:
            report = backup_store(
                store, tmp_path / "out" / "copy.sqlite3", progress=lambda d, t: steps.append((d, t))
            )
        finally:
            load.stop()
        assert load.pairs > 0
        assert load.searches > 0
        assert len(steps) > 10
        # One self-contained file, private, nothing left beside it.
        assert [p.name for p in report.path.parent.iterdir()] == ["copy.sqlite3"]
        assert report.path.stat().st_mode & 0o777 == 0o600
        assert report.size == report.path.stat().st_size
        assert (report.sources, report.messages) in {(1, 3000), (2, 5000)}
        _assert_consistent(report.path)
        # The live store went on: the import landed whole.
        assert _counts(tmp_path / "live.sqlite3") == {FIRST: 3000, SECOND: 2000}
    finally:
        store.close()


@pytest.mark.slow
def test_a_backup_killed_mid_way_leaves_no_file_under_the_target_name(tmp_path: Path) -> None:
    live, target = tmp_path / "live.sqlite3", tmp_path / "copy.sqlite3"
    store = SQLiteStore(live)
    _seed(store, tmp_path)
    store.close()
    script = (
        "import sys, time\n"
        "from toolkit.store import SQLiteStore, backup\n"
        "backup.STEP_PAGES = 4\n"
        "def slow(done, total):\n"
        "    print('copying', done, total, flush=True)\n"
        "    time.sleep(0.05)\n"
        "backup.backup_store(SQLiteStore(sys.argv[1]), sys.argv[2], progress=slow)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(live), str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for _ in range(5):  # a few steps in
            assert process.stdout.readline().startswith("copying")
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(30)
    assert process.returncode == -signal.SIGKILL
    assert not target.exists()
    (partial,) = tmp_path.glob(".copy.sqlite3.partial-*")  # what is left says what it is
    assert partial.is_dir()
    with sqlite3.connect(live) as db:
        assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
    assert _counts(live) == {FIRST: 3000}
    again = SQLiteStore(live)
    try:
        assert backup_store(again, target).messages == 3000
    finally:
        again.close()
    assert _counts(target) == {FIRST: 3000}


def test_a_backup_refuses_to_replace_a_file_or_the_store_itself(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "live.sqlite3")
    try:
        store.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=1)
        (tmp_path / "there.sqlite3").write_bytes(b"keep me")
        with pytest.raises(InvalidRequest, match="exists; use --force"):
            backup_store(store, tmp_path / "there.sqlite3")
        assert (tmp_path / "there.sqlite3").read_bytes() == b"keep me"
        with pytest.raises(InvalidRequest, match="is the store itself"):
            backup_store(store, tmp_path / "live.sqlite3", overwrite=True)
        with pytest.raises(InvalidRequest, match="is a folder"):
            backup_store(store, tmp_path)
        assert backup_store(store, tmp_path / "there.sqlite3", overwrite=True).sources == 1
    finally:
        store.close()


def _message_store(path: Path, internal_id: int, count: int) -> SQLiteStore:
    store = SQLiteStore(path)
    source = store.upsert_source(
        title=f"S{internal_id}", kind=SourceKind.CHAT, internal_id=internal_id
    )
    store.upsert_messages(
        [Message(source.id, i, T0 + timedelta(minutes=i), f"m{i}") for i in range(1, count + 1)]
    )
    store.cache_put(f"k{internal_id}", "v")
    return store


def test_a_restore_refuses_a_store_with_data_unless_told_and_lands_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = _message_store(tmp_path / "origin.sqlite3", 1, 50)
    backup_store(origin, tmp_path / "b.sqlite3")
    origin.close()

    empty = SQLiteStore(tmp_path / "empty.sqlite3")
    try:
        assert restore_store(empty, tmp_path / "b.sqlite3").messages.inserted == 50
        assert empty.cache_get("k1") == "v"
    finally:
        empty.close()

    held = _message_store(tmp_path / "held.sqlite3", 2, 10)
    try:
        with pytest.raises(InvalidRequest, match=r"not empty \(1 source, 1 cached summary\)"):
            restore_store(held, tmp_path / "b.sqlite3")

        def broken(*args: object, **kwargs: object) -> None:
            held.upsert_source(title="half", kind=SourceKind.CHAT, internal_id=3)
            raise StoreError("the disk went away")

        monkeypatch.setattr(backup, "copy_store", broken)
        with pytest.raises(StoreError, match="went away"):
            restore_store(held, tmp_path / "b.sqlite3", replace=True)
        assert _counts(tmp_path / "held.sqlite3") == {2: 10}  # nothing of it landed
        monkeypatch.undo()

        restore_store(held, tmp_path / "b.sqlite3", replace=True)
        assert _counts(tmp_path / "held.sqlite3") == {1: 50}
        assert held.cache_get("k2") is None
        assert held.cache_get("k1") == "v"
    finally:
        held.close()
    before = (tmp_path / "b.sqlite3").read_bytes()
    assert (tmp_path / "b.sqlite3").read_bytes() == before  # the backup is never written


def test_a_restore_refuses_what_is_not_a_backup(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    (tmp_path / "notes.txt").write_text("not a store")
    try:
        with pytest.raises(InvalidRequest, match="no backup file"):
            restore_store(store, tmp_path / "missing.sqlite3")
        with pytest.raises(InvalidRequest, match="is not a store backup"):
            restore_store(store, tmp_path / "notes.txt")
        with sqlite3.connect(tmp_path / "other.sqlite3") as db:
            db.execute("CREATE TABLE t (x)")
        with pytest.raises(InvalidRequest, match="is not a store backup"):
            restore_store(store, tmp_path / "other.sqlite3")
    finally:
        store.close()


@pytest.mark.slow
def test_a_backup_of_a_live_postgres_store_is_one_snapshot_and_restores(
    pg_server: PgServer, pg_url: str, tmp_path: Path
) -> None:
    store = PostgresStore(pg_url, pool_size=4)
    try:
        _seed(store, tmp_path)
        store.add_api_key(
            NewApiKey(name="ops", prefix="mlk_abc", key_hash="h" * 64, scopes=["search.read"])
        )
        load = _Load(store, tmp_path).start()
        try:
            report = backup_store(store, tmp_path / "pg.sqlite3")
        finally:
            load.stop()
        _assert_consistent(report.path)
    finally:
        store.close()
    again = PostgresStore(pg_server.create_database("restored"), pool_size=2)
    try:
        copied = restore_store(again, report.path)
        assert copied.keys_added == 1
        assert {s.source.internal_id: s.message_count for s in again.list_sources()} == _counts(
            report.path
        )
    finally:
        again.close()


def test_a_store_written_at_every_step_still_gets_its_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write by another connection restarts SQLite's stepped copy; after a few
    restarts the rest is copied in one step, with every write made before it."""
    monkeypatch.setattr(backup, "STEP_PAGES", 8)
    store = _message_store(tmp_path / "live.sqlite3", 1, 2000)
    calls: list[int] = []

    def write_each_step(done: int, total: int) -> None:
        calls.append(done)
        store.cache_put(f"step{len(calls)}", "v")

    try:
        report = backup_store(store, tmp_path / "b.sqlite3", progress=write_each_step)
    finally:
        store.close()
    assert len(calls) > backup.MAX_RESTARTS
    assert report.messages == 2000
    with sqlite3.connect(report.path) as db:
        keys = {row[0] for row in db.execute("SELECT key FROM cache")}
    assert keys == {"k1"} | {f"step{i}" for i in range(1, len(calls) + 1)}
