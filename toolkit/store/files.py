"""Private files: a store's folder is 0700 and its files 0600 when the toolkit creates them;
an SQLite store file is made whole in one step, and a file that is no store is refused.

An imported chat is as private as the chat itself, so nobody else on the machine may
read it. SQLite gives the ``-wal`` and ``-shm`` files the mode of the database file,
so creating the database file 0600 before SQLite opens it covers all three.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

from toolkit.errors import StoreError

DIR_MODE = 0o700
FILE_MODE = 0o600
_HEADER = b"SQLite format 3\x00"
_MIGRATIONS_COLUMNS = "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL"


def private_dir(path: str | Path) -> Path:
    """Create ``path`` (and missing parents) mode 0700; an existing folder is left alone."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        # mkdir's mode is filtered by the umask; a permissive umask must not widen it.
        os.chmod(folder, DIR_MODE)
    return path


def claim_store_file(path: Path) -> None:
    """Make sure ``path`` is a store: create it (0600, with the store's first table) when
    missing, in one step so that processes opening it together never see it half made;
    refuse a file that is no SQLite database (0 bytes included), or an SQLite database
    of another program, with one line: it is never overwritten or recreated.

    Raises:
        StoreError: ``path`` is a folder, an empty or foreign file, or cannot be read.
    """
    try:
        if not path.exists():
            _create_store_file(path)
            return
        if path.is_dir():
            raise StoreError(f"cannot open the store at {path}: it is a folder, not a file")
        with path.open("rb") as f:
            head = f.read(len(_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot open the store at {path}: {exc.strerror or exc}") from exc
    if not head:
        why = "an empty file (0 bytes)"
    elif head != _HEADER:
        why = "not an SQLite database"
    elif not _ours(path):
        why = "an SQLite database of another program"
    else:
        return
    raise StoreError(
        f"cannot open the store at {path}: it is {why}, not a Message Lens store, and is "
        "left as it is: move it away "
        "(a new store is made where there is no file) or point MLENS_DATABASE at the store"
    )


def _ours(path: Path) -> bool:
    """Whether the SQLite file at ``path`` is empty of tables or has the store's."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        ) as db:
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError:
        return True  # damaged: opening says so (StoreDamaged), with the recovery step
    return not names or "_migrations" in names


def _create_store_file(path: Path) -> None:
    private_dir(path.parent)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.new-", dir=path.parent)
    os.close(fd)
    try:
        os.chmod(name, FILE_MODE)
        with contextlib.closing(sqlite3.connect(name)) as db:
            db.execute(f"CREATE TABLE IF NOT EXISTS _migrations ({_MIGRATIONS_COLUMNS})")
            db.commit()
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(name, path)
    finally:
        os.unlink(name)
