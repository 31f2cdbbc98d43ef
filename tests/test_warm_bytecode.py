"""``scripts/warm_bytecode.py``: the bytecode of what ``mlens`` and ``mlens serve`` load at
start is written even where ``PYTHONDONTWRITEBYTECODE`` is set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_start_modules_get_their_bytecode_under_dont_write(tmp_path: Path) -> None:
    cache = tmp_path / "pycache"  # an empty bytecode cache: nothing compiled before
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(cache)}

    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "warm_bytecode.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stderr
    written = [p.as_posix() for p in cache.rglob("*.pyc")]
    # The command line, its libraries, the server's, and the project's packages whole.
    expected = (
        "/cli/lean_help.",
        "/typer/rich_utils.",
        "/rich/console.",
        "/uvicorn/__init__.",
        "/cli/asgi.",
        "/toolkit/wire.",
        "/summarize/llm/grounding.",
    )
    assert [part for part in expected if not any(part in path for path in written)] == []
