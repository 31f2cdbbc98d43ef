"""``mlens summarize``: a period summary (text or JSON) and a source's description."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from summary_data import seed
from typer.testing import CliRunner

from cli import app
from cli.state import store

TEAM, RU = "@platform_team", "https://t.me/db_weekly_ru"


@pytest.mark.slow
def test_cli_period_and_source_summaries(cli_env: Path) -> None:
    runner = CliRunner()
    seed(store())
    period_args = ["summarize", TEAM, "--from", "2024-05-06", "--to", "2024-05-13"]
    result = runner.invoke(app, [*period_args, "--language", "ru", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["engine"] == "extractive"
    assert data["summary"].startswith("В чате 6 разговоров; главные темы: «")
    text = runner.invoke(app, [*period_args, "--kind", "channel"])
    assert text.exit_code == 0, text.output
    assert "“Platform Team” posted" in text.stdout
    assert "engine: extractive" in text.stdout
    source = runner.invoke(app, ["summarize", RU, "--source", "--language", "en"])
    assert source.exit_code == 0, source.output
    assert source.stdout.startswith("“Базы данных” is a channel.")
    missing = runner.invoke(app, ["summarize", TEAM, "--language", "en"])
    assert missing.exit_code == 2
    assert "--from and --to" in missing.output
