"""``mlens serve`` hands uvicorn the settings that bound a stop: the graceful timeout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from cli.app import app


def test_serve_bounds_the_graceful_shutdown(
    cli_env: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **kwargs: calls.append(kwargs))
    monkeypatch.setenv("MLENS_SHUTDOWN_TIMEOUT_SECONDS", "3")
    result = runner.invoke(app, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    (kwargs,) = calls
    assert kwargs["timeout_graceful_shutdown"] == 3
    assert (kwargs["host"], kwargs["port"]) == ("127.0.0.1", 8123)
