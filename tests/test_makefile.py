"""The Makefile's ports: ``make serve`` on PORT (8000), ``make app`` on PORT when given,
else on APP_PORT (8501). Checked with ``make -n`` (nothing runs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def port(target: str, *args: str, **env: str) -> str:
    """The port ``make -n target`` would give the server."""
    clean = {k: v for k, v in os.environ.items() if k not in {"PORT", "APP_PORT", "HOST"}}
    dry = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**clean, **env},
    )
    found = re.search(r"--(?:server\.)?port (\S+)", dry.stdout)
    assert found, dry.stdout
    return found.group(1)


def test_serve_listens_on_port() -> None:
    assert port("serve") == "8000"
    assert port("serve", "PORT=9000") == "9000"


def test_app_honours_port_when_given() -> None:
    assert port("app") == "8501"
    assert port("app", "PORT=9000") == "9000"
    assert port("app", PORT="9001") == "9001"
    assert port("app", "APP_PORT=9100") == "9100"
