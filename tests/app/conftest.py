"""Fixtures of the app and workspace tests: one embedder per session, a tmp data folder."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_fixture import HANDLE, write_export

from toolkit import Settings, Workspace
from toolkit.embeddings import Embedder, get_embedder

# Settings a developer's shell may carry that would leak into the tests.
_ENV = ("MLENS_DATABASE", "MLENS_WEIGHTS_FILE", "MLENS_LLM_BASE_URL", "MLENS_SUMMARY_ENGINE")


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The bundled embedder, loaded once for the whole session."""
    return get_embedder(Settings(_env_file=None))  # type: ignore[call-arg]


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
def eval_cache(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """Vectors of the first ``en_stsb`` dev query's pool, embedded once per session."""
    folder = tmp_path_factory.mktemp("eval")
    ws = Workspace(Settings(_env_file=None, data_dir=folder), embedder=embedder)  # type: ignore[call-arg]
    ws.dev_sets(["en_stsb"], limit=1)
    ws.close()
    return folder / "cache"


@pytest.fixture
def warm_eval(data_dir: Path, eval_cache: Path) -> Path:
    """The session's dev-set vectors, copied into the fresh data folder's cache."""
    shutil.copytree(eval_cache, data_dir / "cache", dirs_exist_ok=True)
    return data_dir
