"""A disk that fills during an import: one ``StoreFull`` error, the store unchanged, no
staging file left behind (SQLite's "database or disk is full" and ENOSPC both)."""

from __future__ import annotations

import contextlib
import errno
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from store_backends import snapshot

from toolkit.errors import StoreError, StoreFull, is_disk_full
from toolkit.ingest import import_export
from toolkit.store import SQLiteStore
from toolkit.store import sqlite as sqlite_backend

STAGING = sqlite_backend.SQLiteDialect.staging_area


def export(path: Path, count: int = 3000) -> Path:
    messages = [
        {"id": i, "type": "message", "date_unixtime": str(1_714_000_000 + i), "text": "x" * 400}
        for i in range(1, count + 1)
    ]
    data = {"name": "Big", "type": "private_group", "id": 12, "messages": messages}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def small_disk(*, stage: str = "stage", pages: int = 30) -> Any:
    """``staging_area`` on an import connection whose ``stage`` (the staging file) or
    ``main`` (the store) file can grow to ``pages`` pages only, or ``main`` by two more
    pages than it has: SQLite then fails with SQLITE_FULL, as it does on a full disk."""

    @contextlib.contextmanager
    def staging_area(self: Any, conn: Any) -> Iterator[None]:
        with STAGING(self, conn):
            if stage == "main":
                pages_now = conn.execute("PRAGMA main.page_count").fetchone()[0]
                conn.execute(f"PRAGMA main.max_page_count = {pages_now + 2}")
            else:
                conn.execute(f"PRAGMA stage.max_page_count = {pages}")
            yield

    return staging_area


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".stage-" in p.name)


def test_a_full_staging_file_is_one_error_and_changes_nothing(
    store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import_export(store, export(tmp_path / "first.json", 5))
    before = snapshot(store)
    monkeypatch.setattr(sqlite_backend.SQLiteDialect, "staging_area", small_disk())
    with pytest.raises(StoreFull, match="no space left") as raised:
        import_export(store, export(tmp_path / "big.json"), batch_size=200)
    assert "\n" not in str(raised.value)
    assert snapshot(store) == before
    assert leftovers(tmp_path) == []


def test_a_store_that_cannot_grow_at_publish_is_unchanged(
    store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import_export(store, export(tmp_path / "first.json", 5))
    before = snapshot(store)
    monkeypatch.setattr(sqlite_backend.SQLiteDialect, "staging_area", small_disk(stage="main"))
    with pytest.raises(StoreFull):
        import_export(store, export(tmp_path / "big.json"))
    assert snapshot(store) == before
    assert leftovers(tmp_path) == []


def test_enospc_creating_the_staging_file_is_store_full(
    store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_space(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sqlite_backend.tempfile, "mkstemp", no_space)
    with pytest.raises(StoreFull):
        import_export(store, export(tmp_path / "r.json", 5))
    assert store.list_sources() == []


def test_disk_full_is_recognised_from_each_driver() -> None:
    assert is_disk_full(OSError(errno.ENOSPC, "full"))
    assert is_disk_full(OSError(errno.EDQUOT, "quota"))
    assert is_disk_full(psycopg.errors.DiskFull("could not extend file"))
    wrapped = StoreError("write failed")
    wrapped.__cause__ = OSError(errno.ENOSPC, "full")
    assert is_disk_full(wrapped)
    assert not is_disk_full(OSError(errno.EACCES, "denied"))
    assert not is_disk_full(StoreError("database is locked"))
