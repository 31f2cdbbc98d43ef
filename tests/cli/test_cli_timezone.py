"""``mlens timezone``: show or set a source's own time zone; ``mlens sources --json`` shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_builders import chat, message, write
from typer.testing import CliRunner

from cli import app
from cli.state import workspace
from toolkit.errors import InvalidRequest

REF = "@zoned_chat"


@pytest.fixture
def zoned(runner: CliRunner, cli_env: Path) -> str:
    """A chat exported at UTC+3, imported through ``mlens import``; returns its ref."""
    export = chat(
        [message(1, "a"), message(2, "b")],
        name="Zoned",
        type_="public_supergroup",
        id_=1_333_000_001,
    )
    path = write(cli_env / "result.json", export)
    result = runner.invoke(app, ["import", str(path), "--ref", REF, "--no-progress", "--no-embed"])
    assert result.exit_code == 0, result.output
    return REF


def timezone_listed(runner: CliRunner) -> str | None:
    result = runner.invoke(app, ["sources", "--json"])
    assert result.exit_code == 0, result.output
    (source,) = json.loads(result.stdout)
    return source["timezone"]


def test_learned_shown_set_and_shown_again(runner: CliRunner, zoned: str) -> None:
    assert timezone_listed(runner) == "+03:00"
    shown = runner.invoke(app, ["timezone", zoned])
    assert shown.exit_code == 0, shown.output
    assert "@zoned_chat (Zoned): time zone +03:00 (the export's offset)" in shown.stdout
    changed = runner.invoke(app, ["timezone", zoned, "Europe/Berlin"])
    assert changed.exit_code == 0, changed.output
    assert "time zone Europe/Berlin" in changed.stdout
    assert timezone_listed(runner) == "Europe/Berlin"
    assert runner.invoke(app, ["timezone", zoned, "UTC+9"]).exit_code == 0
    assert timezone_listed(runner) == "+09:00"


def test_an_unknown_zone_is_one_line_and_changes_nothing(runner: CliRunner, zoned: str) -> None:
    result = runner.invoke(app, ["timezone", zoned, "Mars/Olympus"])
    assert result.exit_code == 1
    assert "unknown time zone 'Mars/Olympus'" in result.stderr
    assert timezone_listed(runner) == "+03:00"


def test_the_workspace_verb(zoned: str) -> None:
    ws = workspace()
    assert ws.set_timezone(zoned, " +0530 ").timezone == "+05:30"
    assert ws.source_stats(zoned).source.timezone == "+05:30"
    with pytest.raises(InvalidRequest) as caught:
        ws.set_timezone(zoned, "+25:00")
    assert caught.value.field == "timezone"


def test_auto_forgets_a_set_zone(runner: CliRunner, zoned: str) -> None:
    assert runner.invoke(app, ["timezone", zoned, "Europe/Berlin"]).exit_code == 0
    listed = json.loads(runner.invoke(app, ["sources", "--json"]).stdout)[0]
    assert (listed["timezone"], listed["timezone_origin"]) == ("Europe/Berlin", "set")
    # Two messages tell nothing of the members' nights: no zone is left (UTC).
    result = runner.invoke(app, ["timezone", zoned, "auto"])
    assert result.exit_code == 0, result.output
    assert "not known (read as UTC)" in result.stdout
    assert timezone_listed(runner) is None
