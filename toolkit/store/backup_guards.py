"""What a backup may write over and what a restore may read: ``check_target``,
``check_schema``, ``scratch_copy`` and ``read_backup``.

- **A backup target** is a regular file or nothing. A named pipe, a device or a socket
  is never replaced by a file (a pipe would be gone for whoever reads it; ``/dev/sda``
  would be a file). The live store and every file beside it that belongs to it
  (``-wal``, ``-shm``, ``-journal``, the import lock) are refused by name once symlinks
  are resolved and by device and inode (a hard link has another name): replacing the
  store's write-ahead log loses every commit it holds after a crash.
- **A backup's schema** is the list of migrations it records. One this version does not
  know comes from a newer version: copying its tables through this version's schema
  would drop what the newer one added, so the restore is refused and the step named.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from toolkit.errors import InvalidRequest, StoreError, StoreFull, is_disk_full
from toolkit.store.migrations import recorded_names

SIDE_FILES: tuple[tuple[str, str], ...] = (
    ("", "the store itself"),
    ("-wal", "the store's write-ahead log"),
    ("-shm", "the store's shared-memory index"),
    ("-journal", "the store's rollback journal"),
    (".import-lock", "the store's import lock"),
)
"""Suffixes of the live store's file name that name a file of the store, and what each is."""


def _kind(mode: int) -> str:
    """A non-regular file's kind, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat`` through symlinks; ``None`` when nothing is there (a dangling link too)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise InvalidRequest(f"cannot look at the backup target {path}: {exc.strerror}") from exc


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise InvalidRequest(f"cannot resolve the backup target {path}: {exc}") from exc


def check_target(target: Path, live: str | None, *, overwrite: bool) -> None:
    """Refuse a backup ``target`` that is not a regular file or absent, that is the live
    store's file ``live`` or one of its side files, or that exists without ``overwrite``.

    Raises:
        InvalidRequest: the target is refused; the message says why.
    """
    found = _stat(target)
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise InvalidRequest(f"the backup target {target} is a folder; name a file")
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise InvalidRequest(
            f"the backup target {target} is {_kind(found.st_mode)}; "
            "a backup only replaces a regular file"
        )
    if live is not None:
        where = _resolved(target)
        for suffix, what in SIDE_FILES:
            side = Path(live + suffix)
            other = _stat(side)
            same_inode = (
                found is not None
                and other is not None
                and (found.st_dev, found.st_ino) == (other.st_dev, other.st_ino)
            )
            if same_inode or where == _resolved(side):
                raise InvalidRequest(f"the backup target {target} is {what} ({side.name})")
    if found is not None and not overwrite:
        raise InvalidRequest(f"{target} exists; use --force to replace it")


def check_schema(copy: Path, shown: Path) -> None:
    """Refuse the backup file ``copy`` (named ``shown`` to the user) when it records a
    migration this version does not know: it was written by a newer version.

    Raises:
        InvalidRequest: the backup's schema is newer; names its first unknown step.
    """
    uri = f"file:{quote(str(copy))}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        recorded = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    known = set(recorded_names("sqlite"))
    unknown = [name for name in recorded if name not in known]
    if unknown:
        more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
        raise InvalidRequest(
            f"the backup {shown} has a newer schema than this version knows "
            f"({unknown[0]}{more}); restoring it would drop what that schema added: "
            "restore it with the version that wrote it, or upgrade"
        )


@contextlib.contextmanager
def scratch_copy(live: str | None) -> Iterator[Path]:
    """A path for a restore's working copy of a backup, in a private folder beside the
    live store's file ``live`` (the system's temporary folder for a server's store),
    never beside the backup: it may be on read-only media. The folder goes when the
    block ends."""
    parent = Path(live).parent if live is not None else None
    try:
        folder = tempfile.mkdtemp(prefix=".restore-", dir=parent)
    except OSError as exc:
        raise StoreError(f"cannot make a working folder for the restore: {_line(exc)}") from exc
    try:
        yield Path(folder) / "backup.sqlite3"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def read_backup(source: Path, copy: Path) -> None:
    """Copy the backup (and a write-ahead log beside it, which holds commits) to ``copy``;
    the backup is only ever read."""
    try:
        shutil.copyfile(source, copy)
        wal = Path(f"{source}-wal")
        if wal.is_file():
            shutil.copyfile(wal, Path(f"{copy}-wal"))
    except OSError as exc:
        if is_disk_full(exc):
            raise StoreFull(f"no space left to read the backup {source}") from exc
        raise StoreError(f"cannot read the backup {source}: {_line(exc)}") from exc


def _line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
