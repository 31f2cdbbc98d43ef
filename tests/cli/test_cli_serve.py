"""``mlens serve`` hands uvicorn the settings that bound a stop: the graceful timeout."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
import uvicorn
from typer.testing import CliRunner

from cli.app import app
from service.edge import EdgeConfig


class FakeServer:
    """Records the config ``mlens serve`` would run, serves nothing."""

    configs: ClassVar[list[EdgeConfig]] = []

    def __init__(self, config: EdgeConfig) -> None:
        self.configs.append(config)
        self.started = False

    def run(self) -> None:
        """Pretend to have served."""
        self.started = True


def test_serve_bounds_the_graceful_shutdown(
    cli_env: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeServer.configs = []
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    monkeypatch.setenv("MLENS_SHUTDOWN_TIMEOUT_SECONDS", "3")
    result = runner.invoke(app, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    (config,) = FakeServer.configs
    assert config.timeout_graceful_shutdown == 3
    assert (config.host, config.port, config.workers) == ("127.0.0.1", 8123, 1)


def test_serve_says_which_settings_files_it_read_and_no_value(
    cli_env: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeServer.configs = []
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    (cli_env / ".env").write_text("MLENS_LLM_API_KEY=sk-very-secret-1\nMLENS_SUMMARY_ENGINE=auto\n")
    result = runner.invoke(app, ["serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("settings:"))
    assert line == f"settings: environment (1 MLENS_ variables), {cli_env / '.env'} (2)"
    assert "sk-very-secret-1" not in result.output
