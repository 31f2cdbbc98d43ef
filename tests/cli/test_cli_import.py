"""``mlens import``: a table of what changed; a bad file is one line and exit 1."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from cli.state import store
from toolkit.refs import parse_ref
from toolkit.store import sqlite as sqlite_backend


def export(path: Path, texts: list[str]) -> Path:
    """A single-chat Telegram Desktop export of a public channel "Test chat"."""
    messages = [
        {"id": i, "type": "message", "date_unixtime": str(1_700_000_000 + 60 * i), "text": t}
        for i, t in enumerate(texts, 1)
    ]
    data = {"name": "Test chat", "type": "public_channel", "id": 777, "messages": messages}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.slow
def test_cli_import_prints_what_it_imported(runner: CliRunner, cli_env: Path) -> None:
    path = export(cli_env / "result.json", ["a", "b"])
    result = runner.invoke(app, ["import", str(path), "--ref", "@cli_channel", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "@cli_channel" in result.stdout
    assert "Test chat" in result.stdout
    assert store().count_messages(store().get_source(parse_ref("@cli_channel")).id) == 2
    again = runner.invoke(app, ["import", str(path), "--ref", "@cli_channel", "--no-progress"])
    row = next(line for line in again.stdout.splitlines() if "@cli_channel" in line)
    assert [cell.strip() for cell in row.split("│")[3:6]] == ["0", "0", "2"]


def test_cli_import_of_a_bad_file_is_one_line_and_a_failure(
    runner: CliRunner, cli_env: Path
) -> None:
    path = cli_env / "result.json"
    path.write_text('{"name": "x", "type": "personal_chat", "id": 3, "messages": [')
    result = runner.invoke(app, ["import", str(path), "--no-progress"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: result.json is truncated")


def test_cli_import_on_a_full_disk_is_one_line_and_leaves_nothing(
    runner: CliRunner, cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_space(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    path = export(cli_env / "result.json", ["a", "b"])
    store()  # the store exists; only the import's staging file finds no space
    monkeypatch.setattr(sqlite_backend.tempfile, "mkstemp", no_space)
    result = runner.invoke(app, ["import", str(path), "--no-progress", "--no-embed"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: result.json: no space left on the disk")
    assert store().list_sources() == []


def test_cli_import_refuses_a_handle_for_a_private_channel_in_one_line(
    runner: CliRunner, cli_env: Path
) -> None:
    path = cli_env / "result.json"
    data = {"name": "Secret", "type": "private_channel", "id": 5, "messages": []}
    path.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["import", str(path), "--ref", "@public_handle", "--no-progress"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "private channel, which has no public handle" in lines[0]
