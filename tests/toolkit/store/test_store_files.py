"""The SQLite store's file: made whole in one step, a file that is no store refused and
left alone, damage recognised (``StoreDamaged``) and logged once with the recovery step."""

from __future__ import annotations

import logging
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from toolkit.errors import StoreDamaged, StoreError
from toolkit.models import SourceKind
from toolkit.store import SQLiteStore


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "an empty file (0 bytes)"),
        (b'{"name": "not a database"}', "not an SQLite database"),
    ],
    ids=["empty", "json"],
)
def test_a_file_that_is_no_store_is_refused_and_left_alone(
    tmp_path: Path, content: bytes, why: str
) -> None:
    path = tmp_path / "mlens.sqlite3"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=r"cannot open the store at .*mlens\.sqlite3") as info:
        SQLiteStore(path)
    assert why in str(info.value)
    assert "\n" not in str(info.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlens.sqlite3"]


def test_another_programs_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="an SQLite database of another program"):
        SQLiteStore(path)
    assert path.read_bytes() == before


def test_a_new_store_is_private_and_processes_opening_it_together_all_succeed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "mlens.sqlite3"
    opened: list[SQLiteStore] = []
    errors: list[Exception] = []

    def open_it() -> None:
        try:
            opened.append(SQLiteStore(path))
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert errors == []
        assert len(opened) == 6
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert not [p for p in path.parent.iterdir() if ".new-" in p.name]
    finally:
        for store in opened:
            store.close()


def test_a_store_file_that_vanished_is_not_recreated(tmp_path: Path) -> None:
    path = tmp_path / "mlens.sqlite3"
    store = SQLiteStore(path)
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        store.connections.readers.close()  # type: ignore[union-attr]
        store.connections.writers.close()
        with pytest.raises(StoreError):
            store.connections._connect(read_only=True)
        assert not path.exists()
    finally:
        store.close()


def _damage(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as f:
        for page in range(2, size // 4096):
            f.seek(page * 4096)
            f.write(b"\x5a" * 4096)


def test_damage_is_store_damaged_logged_once_with_the_recovery_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mlens.sqlite3"
    store = SQLiteStore(path)
    source = store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="t")
    store.close()
    _damage(path)
    with caplog.at_level(logging.ERROR, logger="toolkit.store"):
        store = SQLiteStore(path)  # opened all the same: requests get the 503
        try:
            for _ in range(3):
                with pytest.raises(StoreDamaged):
                    store.check_health(1.0)
                with pytest.raises(StoreDamaged):
                    store.source_stats(source.id)
        finally:
            store.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "toolkit.store"]
    assert len(lines) == 1, lines
    assert str(path) in lines[0]
    assert ".recover" in lines[0]


def test_a_sound_store_passes_its_health_check(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "mlens.sqlite3")
    try:
        store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="t")
        store.check_health(1.0)
        assert store.connections.damage is None
    finally:
        store.close()
