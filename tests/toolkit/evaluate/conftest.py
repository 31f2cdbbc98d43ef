"""Fixtures of the evaluation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.config import Settings
from toolkit.evaluate.claims.base import Run


@pytest.fixture
def uncached_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """A claims run on a machine without the real corpus's cache and without dev data."""
    monkeypatch.setenv("MLENS_REAL_CACHE", str(tmp_path / "no-cache"))
    return Run(Settings(), dev_dir=tmp_path / "no-dev")
