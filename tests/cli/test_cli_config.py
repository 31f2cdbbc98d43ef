"""``mlens config`` says where the settings come from: the files read and each ``MLENS_``
variable with where it is set (the environment over ``.env``), never a value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

SECRET = "sk-very-secret-1"


def test_config_names_the_files_and_variables_and_no_value(
    cli_env: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = cli_env / "weights.json"
    weights.write_text("{}")
    (cli_env / ".env").write_text(
        f"MLENS_LLM_API_KEY={SECRET}\nMLENS_LLM_BASE_URL=http://127.0.0.1:9/v1\n"
        "mlens_weights_file=weights.json\nOTHER=1\n"
    )
    monkeypatch.setenv("MLENS_LLM_BASE_URL", "http://127.0.0.1:10/v1")
    result = runner.invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    env_file = str(cli_env / ".env")
    assert found["files"] == [
        {"what": ".env", "path": env_file},
        {"what": "search weights", "path": str(weights)},
    ]
    assert found["variables"] == [
        {"variable": "MLENS_DATA_DIR", "set_in": "environment"},
        {"variable": "MLENS_LLM_BASE_URL", "set_in": "environment"},  # the environment wins
        {"variable": "MLENS_LLM_API_KEY", "set_in": env_file},
        {"variable": "MLENS_WEIGHTS_FILE", "set_in": env_file},
    ]
    text = runner.invoke(app, ["config"])
    assert text.exit_code == 0, text.output
    assert f".env: {env_file}" in text.stdout
    assert f"MLENS_LLM_API_KEY  ({env_file})" in text.stdout
    for output in (result.output, text.output):
        assert SECRET not in output
        assert "127.0.0.1" not in output


def test_config_without_a_file_says_so(cli_env: Path, runner: CliRunner) -> None:
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 0, result.output
    assert "No settings file read" in result.stdout
    assert "MLENS_DATA_DIR  (environment)" in result.stdout
