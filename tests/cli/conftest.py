"""The ``mlens`` commands under test: a fresh settings/workspace per test, a runner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import state


@pytest.fixture
def cli_env(tmp_path: Path, clean_env: pytest.MonkeyPatch) -> Iterator[Path]:
    """The CLI's cached settings and workspace, fresh under ``tmp_path/data``.

    Every ``MLENS_*`` variable of the environment is removed and the working directory is
    ``tmp_path`` (no stray ``.env``); the workspace is closed afterwards.
    """
    clean_env.chdir(tmp_path)
    clean_env.setenv("MLENS_DATA_DIR", str(tmp_path / "data"))
    state.reset()
    yield tmp_path
    state.reset()


@pytest.fixture
def runner() -> CliRunner:
    """A Typer test runner (stdout and stderr kept apart)."""
    return CliRunner()
