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


@pytest.mark.parametrize(
    ("engine", "counts", "note"),
    [
        ("extractive", {}, ""),
        (
            "hybrid",
            {"items_rewritten": 2, "items_offline": 5, "items_dropped": 3},
            " (2 lines rewritten by the model, 5 offline (3 rewrites rejected); "
            "overview: the model's)",
        ),
        (
            "hybrid (partial: timeout)",
            {"items_rewritten": 1, "items_offline": 9, "summary_offline": True},
            " (1 lines rewritten by the model, 9 offline (0 rewrites rejected); overview: offline)",
        ),
        (
            "llm",
            {"items_kept": 4, "items_dropped": 1, "summary_offline": True},
            " (4 lines kept, 1 dropped as ungrounded; overview: offline)",
        ),
    ],
)
def test_the_footer_says_what_the_models_lines_became(
    engine: str, counts: dict[str, object], note: str
) -> None:
    from cli.summarize import _model_note
    from toolkit.models import Summary

    summary = Summary(
        "@c",
        "s",
        [],
        [],
        engine=engine,
        **counts,  # type: ignore[arg-type]
    )

    assert _model_note(summary) == note
