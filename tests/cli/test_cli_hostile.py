"""Hostile bytes at the CLI: markup and terminal escapes from the store are shown, not obeyed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from cli.state import store
from toolkit.models import Message, SourceKind

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
# An older store may hold raw escapes (imports clean them now); markup survives any import.
TITLE = "[red]Evil[/red]\x1b[2J"
TEXT = "deploy \x1b]0;pwned\x07 [bold]now[/bold] \x1b[8mhidden\x1b[0m \u202eevil"


@pytest.fixture
def hostile(cli_env: Path) -> str:
    """A public source whose title and messages carry markup and escapes; its ref."""
    source = store().upsert_source(
        title=TITLE, kind=SourceKind.CHANNEL, internal_id=99, handle="hostile"
    )
    store().upsert_messages(
        [
            Message(source.id, 1, T0, TEXT, sender_name="[blink]Mal\x1b[5m"),
            Message(source.id, 2, T0 + timedelta(minutes=1), "deploy tomorrow, plain"),
        ]
    )
    return "@hostile"


def _literal(output: str) -> None:
    for obeyed in ("\x1b", "\x07", "\u202e"):
        assert obeyed not in output
    assert "\u241b" in output  # ESC shown as its control picture


def test_sources_table_shows_titles_literally(runner: CliRunner, hostile: str) -> None:
    result = runner.invoke(app, ["sources"])
    assert result.exit_code == 0, result.output
    _literal(result.stdout)
    assert "[red]Evil[/red]\u241b[2J" in result.stdout


def test_messages_table_shows_texts_literally(runner: CliRunner, hostile: str) -> None:
    result = runner.invoke(app, ["messages", hostile])
    assert result.exit_code == 0, result.output
    _literal(result.stdout)
    assert "[bold]now[/bold]" in result.stdout
    assert "\u241b]0;pwned\u2407" in result.stdout
    assert "\\u202eevil" in result.stdout


@pytest.mark.slow
def test_search_table_shows_hits_literally(runner: CliRunner, hostile: str) -> None:
    result = runner.invoke(app, ["search", hostile, "deploy", "--limit", "2"])
    assert result.exit_code == 0, result.output
    _literal(result.stdout)
    assert "[bold]now[/bold]" in result.stdout


def test_keys_and_errors_show_names_literally(runner: CliRunner, cli_env: Path) -> None:
    name = "[red]ops[/red]\x1b[31m"
    created = runner.invoke(app, ["keys", "create", "--scope", "search.read", "--name", name])
    assert created.exit_code == 0, created.output
    _literal(created.stderr)
    listed = runner.invoke(app, ["keys", "list"])
    _literal(listed.stdout)
    assert "[red]ops[/red]\u241b[31m" in listed.stdout
    missing = runner.invoke(app, ["messages", "@no_such_[b]handle"])
    assert missing.exit_code == 1
    assert "[b]" in missing.stderr
