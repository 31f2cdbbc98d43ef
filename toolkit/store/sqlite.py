"""The embedded SQLite store: one file under ``./data/`` (or ``:memory:``), its dialect alone.

- **Connections**: WAL journal; one writer connection (a pool of one: writers of this
  process queue for it) and a pool of ``query_only`` readers, which see the last
  committed state and never wait for the writer. An in-memory database is one
  connection for everything.
- **Writes** are ``BEGIN IMMEDIATE`` transactions; a write waits its turn behind other
  processes' writers (``database is locked``) for up to ``write_wait_s``.
- **Imports** take turns through a lock file next to the database (``flock``), across
  processes; their staging table lives in a private file attached next to the store
  as ``stage`` (a stale one, left by a killed import, is removed by the next).
- **Privacy**: the data folder is created 0700 and the database files 0600.
- **The file**: a missing one is made whole in one step (never seen half made by
  another process); one that is not a store (0 bytes, not SQLite, another program's
  database) is refused with one line and left alone; a damaged one (``malformed``)
  makes requests fail with ``StoreDamaged`` (503) and logs one line naming the file
  and how to recover it.

Everything else is the shared store (``store.SQLStore``).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

from toolkit.store.dialect import Connection, Dialect, OnWait, waiting
from toolkit.store.files import FILE_MODE, claim_store_file
from toolkit.store.store import SQLStore

_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_DAMAGED_WORDS = ("malformed", "file is not a database")


class SQLiteDialect(Dialect):
    """SQLite through the standard library's ``sqlite3``.

    Args:
        database: a file path, or ``":memory:"``.
        busy_timeout_ms: how long one statement waits for a lock before it is retried.
        write_wait_s: how long a write waits for its turn behind other writers in all.
    """

    name = "sqlite"
    same = "IS"
    types: ClassVar[dict[str, str]] = {
        "id": "INTEGER PRIMARY KEY",
        "int": "INTEGER",
        "bool": "INTEGER NOT NULL DEFAULT 0",
        "blob": "BLOB",
        "float": "REAL",
        "norowid": " WITHOUT ROWID",
        "stamp": "TEXT NOT NULL",
    }
    stage = "stage"
    begin = "BEGIN IMMEDIATE"
    busy = ("locked", "busy")
    errors = (sqlite3.Error,)
    lone_writes = False  # a lone write still waits its turn as a transaction
    max_anchors = 200  # SQLite allows 500 terms in a compound SELECT: two per anchor

    def __init__(
        self, database: str | Path, *, busy_timeout_ms: int = 5000, write_wait_s: float = 600.0
    ) -> None:
        self.label = self.path = str(database)
        self.busy_timeout_ms = busy_timeout_ms
        self.wait_s = write_wait_s
        self.one_connection = self.path == ":memory:"
        self.file = None if self.one_connection else self.path
        self.readers_apart = not self.one_connection
        self._turn = threading.Lock()

    def connect(self, *, read_only: bool = False) -> Connection:
        """A connection with the store's pragmas (a writer switches the file to WAL).

        The file must exist (``SQLiteStore`` made or checked it): one that vanished is an
        error, never a new empty store.
        """
        target = self.path if self.one_connection else f"file:{quote(self.path)}?mode=rw"
        db = sqlite3.connect(
            target, isolation_level=None, check_same_thread=False, uri=not self.one_connection
        )
        db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        db.execute("PRAGMA foreign_keys = ON")
        if read_only:
            db.execute("PRAGMA query_only = ON")
        elif not self.one_connection:
            # The switch to WAL needs the file to itself and does not wait like other
            # statements, so a process opening the store while another one does (the
            # workers of ``mlens serve --workers N``) tries again for a while.
            deadline = time.monotonic() + self.wait_s
            while True:
                try:
                    db.execute("PRAGMA journal_mode = WAL")
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() > deadline:
                        db.close()
                        raise
                    time.sleep(0.05)
            db.execute("PRAGMA synchronous = NORMAL")
            # After a big import is checkpointed, the WAL file shrinks back to 64 MiB.
            db.execute(f"PRAGMA journal_size_limit = {64 * 1024 * 1024}")
        return db

    def insert(
        self, conn: Connection, table: str, columns: str, rows: Sequence[Sequence[Any]], tail: str
    ) -> None:
        """``INSERT INTO table (columns) VALUES (...) tail`` for every row, inside the
        caller's transaction: one statement per pattern of ``None`` values, each ``None``
        written into it as ``NULL``, run over the rows of that pattern (``executemany``).

        ``sqlite3`` looks for an adapter before binding a ``None`` parameter, which costs
        more than binding the rest of the row; written as ``NULL`` it costs nothing. A
        ``bool`` (``is_service``) is bound as the ``int`` SQLite stores for it: for a
        ``bool`` the module looks for an adapter, then for ``__conform__`` on the value,
        whose missing-attribute error alone costs more than the rest of the row. The
        rows of one pattern are written together, so ``rows`` must not repeat a key (no
        caller's do: each writes the rows of a dictionary by key).
        """
        groups: dict[tuple[bool, ...], list[list[Any]]] = {}
        for row in rows:
            groups.setdefault(tuple([v is None for v in row]), []).append(
                [int(v) if v is True or v is False else v for v in row if v is not None]
            )
        for nulls, values in groups.items():
            marks = ", ".join("NULL" if null else "?" for null in nulls)
            sql = f"INSERT INTO {table} ({columns}) VALUES ({marks}) {tail}"
            conn.cursor().executemany(sql, values)

    def damaged(self, exc: Exception) -> bool:
        """SQLite's "database disk image is malformed" and "file is not a database"."""
        name = getattr(exc, "sqlite_errorname", "")
        return name in _DAMAGED or any(word in str(exc) for word in _DAMAGED_WORDS)

    def recovery(self, exc: Exception) -> str:
        """The one log line about a damaged store file: which file, and how to recover."""
        return (
            f"the store file {self.path} is damaged ({' '.join(str(exc).split())}); "
            "requests answer 503 until it "
            f"is replaced: stop the service, move it aside and restore a backup, or keep "
            f"what is readable with `sqlite3 {self.path} .recover | sqlite3 recovered.sqlite3` "
            "and move recovered.sqlite3 in its place, then start again"
        )

    def health_check(self, conn: Connection, budget_s: float) -> bool:
        """Read the sources, then ``PRAGMA quick_check`` for as long as ``budget_s``
        allows; whether that check got through the whole file (it raises a damage
        error when it finds one)."""
        conn.execute("SELECT count(*) FROM sources").fetchall()
        if not isinstance(conn, sqlite3.Connection):
            return False
        stop = time.monotonic() + budget_s
        conn.set_progress_handler(lambda: time.monotonic() > stop, 10_000)
        try:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                return False  # a big file: the check did not finish in time
            raise
        finally:
            conn.set_progress_handler(None, 0)
        verdict = " ".join(str(rows[0][0]).split()) if rows else "no answer"
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"database disk image is malformed: {verdict}")
        return True

    @contextlib.contextmanager
    def import_turn(self, conn: Connection, on_wait: OnWait | None) -> Iterator[None]:
        """This process's turn lock, then the lock file's (``flock``: other processes)."""
        tell = waiting(on_wait)
        if not self._turn.acquire(blocking=False):
            tell()
            self._turn.acquire()
        try:
            if self.one_connection:
                yield
                return
            fd = os.open(f"{self.path}.import-lock", os.O_CREAT | os.O_RDWR, FILE_MODE)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    tell()
                    fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the lock
        finally:
            self._turn.release()

    @contextlib.contextmanager
    def staging_area(self, conn: Connection) -> Iterator[None]:
        """A private (0600) staging file next to the store, attached as ``stage``, with
        no journal and no syncs; removed afterwards."""
        folder = None if self.one_connection else Path(self.path).parent
        prefix = f".{Path(self.path).name}.stage-"
        if folder is not None:
            # Only the holder of the turn stages: any staging file left here is from an
            # import that was killed, and nobody will ever publish it.
            for stale in folder.glob(f"{glob.escape(prefix)}*"):
                with contextlib.suppress(OSError):
                    stale.unlink()
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=".sqlite3", dir=folder)
        os.close(fd)
        try:
            conn.execute("ATTACH DATABASE ? AS stage", (name,))
            try:
                conn.execute("PRAGMA stage.journal_mode = OFF")
                conn.execute("PRAGMA stage.synchronous = OFF")
                yield
            finally:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("DETACH DATABASE stage")
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


class SQLiteStore(SQLStore):
    """The SQLite ``MessageStore``.

    Args:
        database: a file path, or ``":memory:"`` for a private in-memory store (tests).
        busy_timeout_ms: how long one statement waits for a lock before it is retried.
        write_wait_s: how long a write waits for its turn behind other writers in all.
    """

    def __init__(
        self,
        database: str | Path = ":memory:",
        *,
        busy_timeout_ms: int = 5000,
        write_wait_s: float = 600.0,
    ) -> None:
        if str(database) != ":memory:":
            claim_store_file(Path(database))
        dialect = SQLiteDialect(
            database, busy_timeout_ms=busy_timeout_ms, write_wait_s=write_wait_s
        )
        super().__init__(dialect)
