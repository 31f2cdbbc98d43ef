"""Usage errors are two plain lines (the error, then the usage and the help option);
help texts say what the commands do."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli import app


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["search"], "error: Missing argument 'ref'."),
        (["search", "@trip_planning"], "error: Missing argument 'query'."),
        (["search", "@trip_planning", "q", "--limit", "0"], "error: Invalid value for '--limit'"),
        (["search", "--bogus"], "error: No such option: --bogus"),
        (["bogus"], "error: No such command 'bogus'."),
        (["keys", "revoke"], "error: Missing argument"),
    ],
)
def test_a_usage_error_is_two_lines(
    runner: CliRunner, cli_env: Path, args: list[str], error: str
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith(error)
    assert lines[1].startswith("usage: mlens ")
    assert lines[1].endswith("--help for more)")
    assert "╭" not in result.stderr


def test_help_still_answers_and_no_args_shows_it(runner: CliRunner, cli_env: Path) -> None:
    shown = runner.invoke(app, ["--help"])
    assert shown.exit_code == 0
    assert "search" in shown.stdout
    assert runner.invoke(app, []).exit_code == 2  # no_args_is_help: the help, status 2
    assert "search" in runner.invoke(app, []).stdout


def option_help(command: str, option: str) -> str:
    group = typer.main.get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    return next(p.help for p in params if option in p.opts)


def test_period_help_agrees_with_the_behaviour() -> None:
    until = option_help("summarize", "--to")
    assert "exclusive" not in until
    assert "a bare day is included whole" in until
    assert "a bare day is included whole" in option_help("search", "--to")
    assert "MLENS_DEFAULT_LIMIT" in option_help("search", "--limit")
    assert "MLENS_DEFAULT_SCAN_MESSAGES_LIMIT" in option_help("search", "--scan")
