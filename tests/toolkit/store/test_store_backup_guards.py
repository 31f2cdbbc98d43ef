"""Backups that cannot hurt the store (``toolkit.store.backup_guards``): the store's own
files (by name, through symlinks and hard links), pipes and devices are never a target;
a restore refuses a backup of a newer schema and works from read-only media."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from toolkit.errors import InvalidRequest, StoreError
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.backup import backup_store, restore_store

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2024, 3, 1, 12, tzinfo=UTC)


def _store(path: Path, internal_id: int = 1, count: int = 20) -> SQLiteStore:
    store = SQLiteStore(path)
    source = store.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=internal_id)
    store.upsert_messages(
        [Message(source.id, i, T0 + timedelta(minutes=i), f"m{i}") for i in range(1, count + 1)]
    )
    return store


def _counts(path: Path) -> dict[int, int]:
    store = SQLiteStore(path)
    try:
        return {s.source.internal_id or 0: s.message_count for s in store.list_sources()}
    finally:
        store.close()


@pytest.mark.parametrize(
    ("suffix", "words"),
    [
        ("-wal", "write-ahead log"),
        ("-shm", "shared-memory index"),
        ("-journal", "rollback journal"),
        (".import-lock", "import lock"),
    ],
)
def test_the_stores_side_files_are_never_a_target(tmp_path: Path, suffix: str, words: str) -> None:
    live = tmp_path / "live.sqlite3"
    store = _store(live)
    try:
        side = Path(f"{live}{suffix}")
        before = side.read_bytes() if side.exists() else None
        with pytest.raises(InvalidRequest, match=f"is the store's {words}"):
            backup_store(store, side, overwrite=True)
        assert (side.read_bytes() if side.exists() else None) == before
        # through a symlink, whether the side file is there yet or not
        (tmp_path / "elsewhere").mkdir()
        link = tmp_path / "elsewhere" / "b.sqlite3"
        link.symlink_to(side)
        with pytest.raises(InvalidRequest, match=words):
            backup_store(store, link, overwrite=True)
        # through a symlinked folder
        (tmp_path / "alias").symlink_to(tmp_path)
        with pytest.raises(InvalidRequest, match=words):
            backup_store(store, tmp_path / "alias" / side.name, overwrite=True)
    finally:
        store.close()
    assert _counts(live) == {1: 20}


def test_a_hard_link_to_the_store_or_its_log_is_refused(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    store = _store(live)
    try:
        wal = Path(f"{live}-wal")
        assert wal.exists()  # the store runs in WAL mode
        os.link(wal, tmp_path / "log-link")
        os.link(live, tmp_path / "store-link")
        with pytest.raises(InvalidRequest, match="write-ahead log"):
            backup_store(store, tmp_path / "log-link", overwrite=True)
        with pytest.raises(InvalidRequest, match="is the store itself"):
            backup_store(store, tmp_path / "store-link", overwrite=True)
        assert os.path.samefile(tmp_path / "log-link", wal)
    finally:
        store.close()
    assert _counts(live) == {1: 20}


def test_a_named_pipe_or_a_device_is_never_replaced(tmp_path: Path) -> None:
    store = _store(tmp_path / "live.sqlite3")
    try:
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(InvalidRequest, match="is a named pipe; a backup only replaces"):
            backup_store(store, fifo, overwrite=True)
        assert fifo.is_fifo()
        with pytest.raises(InvalidRequest, match="is a device"):
            backup_store(store, Path("/dev/null"), overwrite=True)
        (tmp_path / "null").symlink_to("/dev/null")
        with pytest.raises(InvalidRequest, match="is a device"):
            backup_store(store, tmp_path / "null", overwrite=True)
        assert Path("/dev/null").is_char_device()
        # a dangling symlink is nothing there: the link is replaced, never followed
        (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
        assert backup_store(store, tmp_path / "dangling").messages == 20
        assert not (tmp_path / "nowhere").exists()
    finally:
        store.close()


def test_a_backup_of_a_newer_schema_is_refused_and_named(tmp_path: Path) -> None:
    origin = _store(tmp_path / "origin.sqlite3")
    backup_store(origin, tmp_path / "b.sqlite3")
    origin.close()
    with sqlite3.connect(tmp_path / "b.sqlite3") as db:
        db.execute("ALTER TABLE messages ADD COLUMN mood TEXT")
        db.execute(
            "INSERT INTO _migrations (name, applied_at) VALUES ('m999_message_moods', '2030')"
        )
    target = _store(tmp_path / "target.sqlite3", internal_id=2, count=3)
    try:
        with pytest.raises(InvalidRequest, match=r"newer schema .*\(m999_message_moods\)"):
            restore_store(target, tmp_path / "b.sqlite3", replace=True)
    finally:
        target.close()
    assert _counts(tmp_path / "target.sqlite3") == {2: 3}
    assert not list(tmp_path.glob(".restore-*"))


def test_a_restore_never_writes_beside_the_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only media, simulated: any file or folder made beside the backup fails."""
    media = tmp_path / "media"
    media.mkdir()
    origin = _store(tmp_path / "origin.sqlite3", count=40)
    backup_store(origin, media / "b.sqlite3")
    origin.close()
    real_open, real_mkdir = os.open, os.mkdir

    def guard(path: object) -> None:
        if Path(str(path)).resolve().parent == media.resolve():
            raise OSError(30, "Read-only file system", str(path))

    def ro_open(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            guard(path)
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def ro_mkdir(path: str, *args: object, **kwargs: object) -> None:
        guard(path)
        real_mkdir(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", ro_open)
    monkeypatch.setattr(os, "mkdir", ro_mkdir)
    store = SQLiteStore(tmp_path / "new.sqlite3")
    try:
        assert restore_store(store, media / "b.sqlite3").messages.inserted == 40
    finally:
        store.close()
    assert sorted(p.name for p in media.iterdir()) == ["b.sqlite3"]


def test_an_unreadable_backup_is_a_store_error_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = _store(tmp_path / "origin.sqlite3")
    backup_store(origin, tmp_path / "b.sqlite3")
    origin.close()

    def failing(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(shutil, "copyfile", failing)
    store = SQLiteStore(tmp_path / "new.sqlite3")
    try:
        with pytest.raises(StoreError, match=r"cannot read the backup .*Input/output error"):
            restore_store(store, tmp_path / "b.sqlite3")
    finally:
        store.close()
    os.mkfifo(tmp_path / "pipe")
    store = SQLiteStore(tmp_path / "new.sqlite3")
    try:
        with pytest.raises(InvalidRequest, match="is not a regular file"):
            restore_store(store, tmp_path / "pipe")
    finally:
        store.close()


_RESTORE = (
    "import sys\n"
    "from toolkit.store import SQLiteStore\n"
    "from toolkit.store.backup import restore_store\n"
    "store = SQLiteStore(sys.argv[2])\n"
    "print(restore_store(store, sys.argv[1]).messages.inserted)\n"
    "store.close()\n"
)


def test_a_restore_from_a_read_only_mount(tmp_path: Path) -> None:
    """A real read-only bind mount, in a private mount namespace (skipped where the
    machine allows none)."""
    media = tmp_path / "media"
    media.mkdir()
    origin = _store(tmp_path / "origin.sqlite3", count=25)
    backup_store(origin, media / "b.sqlite3")
    origin.close()
    unshare = shutil.which("unshare")
    probe = subprocess.run(
        [unshare or "unshare", "-rm", "mount", "--bind", "-o", "ro", str(media), str(media)],
        capture_output=True,
        check=False,
    )
    if unshare is None or probe.returncode != 0:
        pytest.skip("no private mount namespace here")
    script = (
        f'mount --bind -o ro "$1" "$1" && touch "$1/probe" 2>/dev/null && exit 9; '
        f'exec "{sys.executable}" -c "$2" "$1/b.sqlite3" "$3"'
    )
    done = subprocess.run(
        [unshare, "-rm", "sh", "-c", script, "sh", str(media), _RESTORE, str(tmp_path / "n.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "25"
    assert _counts(tmp_path / "n.db") == {1: 25}
