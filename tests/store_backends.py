"""Both stores under one test suite: open either by name, snapshot its rows, peek from outside.

``tests/conftest.py`` parametrises the ``store`` fixture over ``BACKENDS``; these helpers
let a test compare "everything stored" before and after, whichever store it got.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import psycopg

from toolkit.ingest.export.file import open_export
from toolkit.ingest.export.read import ImportReport, import_export
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore

BACKENDS = ("sqlite", "postgres")
Store = SQLiteStore | PostgresStore
TABLES = ("sources", "messages", "topics", "embeddings", "api_keys", "cache")


def snapshot(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every data table, sorted, read through a separate connection."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in TABLES:
        rows = outside_query(store, f"SELECT * FROM {table}")
        out[table] = sorted(
            tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows
        )
    return out


def outside_query(store: Store, sql: str) -> list[tuple[Any, ...]]:
    """Run ``sql`` on a new connection to the store's database (not the store's own)."""
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.database) as conn:
            return conn.execute(sql).fetchall()
    with psycopg.connect(store.dialect.url) as pg:  # type: ignore[attr-defined]
        return pg.execute(sql).fetchall()  # type: ignore[arg-type]


@contextmanager
def half_piped_import(store: Store, text: bytes, fifo: Path) -> Iterator[list[ImportReport]]:
    """Import ``text`` into ``store`` as if read from a slow file at ``fifo``: an OS pipe
    stands in for the file (``mlens import`` refuses a named pipe itself), the first half
    written when the block starts, the rest when it ends; the report lands in the
    yielded list once the import has finished (up to 60 s after the block)."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb")
    fifo.write_bytes(b"")  # the name the report gives; its content comes through the pipe
    result: list[ImportReport] = []

    def opened(path: Path) -> tuple[Any, int]:
        return (reader, len(text)) if Path(path) == fifo else open_export(path)

    with mock.patch("toolkit.ingest.export.read.open_export", opened):
        importer = threading.Thread(target=lambda: result.append(import_export(store, fifo)))
        importer.start()
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(text[: len(text) // 2])
            pipe.flush()
            yield result
            pipe.write(text[len(text) // 2 :])
        importer.join(60)
