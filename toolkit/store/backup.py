"""A live store's consistent copy, and its restore: ``backup_store``, ``restore_store``.

- **An SQLite store** is copied with SQLite's online backup API, from a read-only
  connection, ``STEP_PAGES`` pages a step: searches, imports and other writes go on
  meanwhile. A write by another connection restarts the copy at its next step; after
  ``MAX_RESTARTS`` restarts the rest is copied in one step (one read transaction: in
  WAL mode writers still go on). The copy is the store as it was at one commit.
- **Another store (PostgreSQL)** is copied into a new SQLite store inside one snapshot
  of it (``SQLStore.snapshot``: ``REPEATABLE READ, READ ONLY``), through ``copy_store``:
  sources, messages, topics, vectors, watermarks, API keys and the summary cache, as
  they were at one moment. (``pg_dump`` is the server-side alternative; see
  ``docs/backup.md``.)
- **The backup file** is written in a private temporary folder beside the target
  (``.<name>.partial-*``), checked (``quick_check`` and the store's tables), made one
  self-contained file (no ``-wal`` beside it), synced and only then renamed to the
  target: a backup killed half-way leaves that folder, never a half file under the
  target's name, and the live store is only ever read.
- **A restore** copies the backup to a private folder beside the store (never beside
  the backup, which may be on read-only media), checks the copy, refuses one written by
  a newer version (``backup_guards.check_schema``; opening a store migrates it: the
  copy is migrated, never the backup) and copies that into the store
  in one transaction (``copy_store``): all of it lands, or nothing. A store that holds
  anything (a source, an API key, a cached summary) is refused unless ``replace``,
  which empties it first, in the same transaction.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from toolkit.errors import ConfigError, InvalidRequest, StoreError, StoreFull, is_disk_full
from toolkit.store.backends import open_location
from toolkit.store.backup_guards import check_schema, check_target, read_backup, scratch_copy
from toolkit.store.base import MessageStore
from toolkit.store.copy import CopyReport, copy_store
from toolkit.store.files import FILE_MODE, private_dir
from toolkit.store.store import SQLStore

STEP_PAGES = 1024
"""Pages (4 KiB each by default) the online backup copies per step."""
MAX_RESTARTS = 3
"""Restarts (a write by another connection) after which the rest is copied in one step."""
DATA_TABLES = (
    "alert_results",
    "alert_posts",
    "delivery_alerts",
    "delivery_results",
    "delivery_runs",
    "delivery_schedules",
    "embeddings",
    "topics",
    "messages",
    "sources",
    "api_keys",
    "cache",
)
"""The tables a restore empties (children first) before it copies a backup in."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: pages copied (SQLite) or messages copied (other stores)."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    """A finished backup: where it is, what it holds, how big it is."""

    path: Path
    sources: int
    messages: int
    size: int
    """Bytes of the backup file."""


class _Restarted(Exception):
    """The stepped copy restarted too often: copy the rest in one step."""


def backup_store(
    store: MessageStore,
    target: str | Path,
    *,
    overwrite: bool = False,
    progress: Progress | None = None,
) -> BackupReport:
    """Copy the live ``store`` consistently into the SQLite file ``target``.

    Args:
        store: the store to copy (it is only read).
        target: the backup file to write (its folder is created 0700 when missing).
        overwrite: replace an existing ``target`` (atomically, once the copy is whole).
        progress: called as the copy goes.

    Raises:
        InvalidRequest: ``target`` exists (without ``overwrite``), is a folder, a
            named pipe or a device, or is the store's own file or one beside it (its
            ``-wal``, ``-shm``, ``-journal``; ``backup_guards.check_target``).
        StoreError: the copy failed (``StoreFull`` when the disk is full); nothing is
            left under ``target``'s name.
    """
    sql = _sql_store(store)
    path = Path(target)
    live = sql.dialect.file
    check_target(path, live, overwrite=overwrite)
    try:
        with _partial(path) as partial:
            if live is not None:
                _copy_file(live, partial, progress)
            else:
                _copy_snapshot(sql, partial, progress)
            sources, messages = _check(partial)
            size = partial.stat().st_size
            _sync(partial)
            os.replace(partial, path)
            _sync(path.parent)
    except (OSError, sqlite3.Error) as exc:
        if is_disk_full(exc):
            raise StoreFull(f"no space left for the backup {path}; nothing was written") from exc
        raise StoreError(f"cannot write the backup {path}: {_line(exc)}") from exc
    return BackupReport(path, sources, messages, size)


def restore_store(store: MessageStore, backup: str | Path, *, replace: bool = False) -> CopyReport:
    """Copy the backup file ``backup`` into ``store``, all of it or nothing.

    Args:
        store: the store to restore into.
        backup: a file ``backup_store`` wrote (or any SQLite store file).
        replace: empty a store that holds anything before the backup is copied in.

    Raises:
        InvalidRequest: ``store`` is not empty (without ``replace``), or ``backup`` is
            missing, not a store, or of a newer schema than this version knows.
        StoreError: the backup cannot be read, or the copy failed; the store is as it was.
    """
    sql = _sql_store(store)
    source = Path(backup)
    if not source.exists():
        raise InvalidRequest(f"no backup file at {source}")
    if not source.is_file():
        raise InvalidRequest(f"the backup {source} is not a regular file")
    with scratch_copy(sql.dialect.file) as copy:
        read_backup(source, copy)
        try:
            _check(copy)
        except sqlite3.Error as exc:
            raise InvalidRequest(f"{source} is not a store backup: {_line(exc)}") from exc
        check_schema(copy, source)
        held = _contents(sql)
        if held and not replace:
            raise InvalidRequest(
                f"the store at {sql.dialect.label} is not empty ({held}); "
                "use --force to replace what it holds with the backup"
            )
        origin = open_location(str(copy))
        try:
            with sql.transaction():
                if held:
                    for table in DATA_TABLES:
                        sql.connections.write(f"DELETE FROM {table}")
                return copy_store(origin, sql)
        finally:
            origin.close()


def _sql_store(store: MessageStore) -> SQLStore:
    if not isinstance(store, SQLStore):
        raise ConfigError(f"a {type(store).__name__} cannot be backed up or restored")
    return store


def _contents(store: SQLStore) -> str:
    """What ``store`` holds, in words (``""``: nothing)."""
    parts = []
    nouns = (("sources", "source"), ("api_keys", "API key"), ("cache", "cached summary"))
    for table, noun in nouns:
        ((count,),) = store.connections.read(f"SELECT count(*) FROM {table}")
        if count:
            plural = noun.replace("summary", "summarie") + "s" if count != 1 else noun
            parts.append(f"{count} {plural}")
    return ", ".join(parts)


@contextlib.contextmanager
def _partial(target: Path) -> Iterator[Path]:
    """A file path in a private temporary folder beside ``target``; the folder goes
    when the block ends, whatever happened (a killed process leaves it)."""
    private_dir(target.parent)
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        yield folder / "backup.sqlite3"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy_file(live: str, partial: Path, progress: Progress | None) -> None:
    """The online backup API, in steps, from a read-only connection to the live file."""
    fd = os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    os.close(fd)
    source = sqlite3.connect(f"file:{quote(live)}?mode=ro", uri=True)
    target = sqlite3.connect(partial)
    try:
        left = [-1, 0]  # pages left at the last step, restarts seen

        def step(_status: int, remaining: int, total: int) -> None:
            if left[0] >= 0 and remaining > left[0]:
                left[1] += 1
                if left[1] > MAX_RESTARTS:
                    raise _Restarted
            left[0] = remaining
            if progress is not None:
                progress(total - remaining, total)

        try:
            source.backup(target, pages=STEP_PAGES, progress=step)
        except _Restarted:
            source.backup(target, pages=-1)
        target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    finally:
        target.close()
        source.close()


def _copy_snapshot(store: SQLStore, partial: Path, progress: Progress | None) -> None:
    """``copy_store`` into a new SQLite store, inside one snapshot of ``store``."""
    target = open_location(str(partial))
    try:
        with store.snapshot():
            total = sum(s.message_count for s in store.list_sources())
            done = [0]

            def copied(_key: str, count: int) -> None:
                if progress is not None:
                    progress(done[0] + count, total)

            copy_store(store, target, progress=copied)
    finally:
        target.close()
    with contextlib.closing(sqlite3.connect(partial)) as db:
        db.execute("PRAGMA journal_mode = DELETE")


def _check(path: Path) -> tuple[int, int]:
    """Whether the file at ``path`` is a whole store: ``quick_check`` passes and its
    tables are there; its sources and messages.

    Raises:
        sqlite3.DatabaseError: it is not.
    """
    with contextlib.closing(sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)) as db:
        verdict = db.execute("PRAGMA quick_check(1)").fetchone()
        if not verdict or verdict[0] != "ok":
            raise sqlite3.DatabaseError(f"the copy fails its integrity check: {verdict}")
        ((sources,),) = db.execute("SELECT count(*) FROM sources").fetchall()
        ((messages,),) = db.execute("SELECT count(*) FROM messages").fetchall()
        db.execute("SELECT count(*) FROM _migrations").fetchall()
    return int(sources), int(messages)


def _sync(path: Path) -> None:
    """Flush a file (or a folder's entries) to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
