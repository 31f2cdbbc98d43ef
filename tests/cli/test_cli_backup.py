"""``mlens backup`` and ``mlens restore``: through the workspace, one line on every error."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app, state
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.files import private_dir

T0 = datetime(2024, 3, 1, 12, tzinfo=UTC)


def _seed(data: Path, internal_id: int, count: int) -> None:
    store = SQLiteStore(private_dir(data) / "mlens.sqlite3")
    try:
        source = store.upsert_source(title="Ops", kind=SourceKind.CHAT, internal_id=internal_id)
        store.upsert_messages(
            [Message(source.id, i, T0 + timedelta(minutes=i), f"m{i}") for i in range(1, count + 1)]
        )
    finally:
        store.close()


def _one_error_line(stderr: str, words: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    assert words in lines[0]


def _messages(data: Path) -> dict[int | None, int]:
    store = SQLiteStore(data / "mlens.sqlite3")
    try:
        return {s.source.internal_id: s.message_count for s in store.list_sources()}
    finally:
        store.close()


def test_backup_then_restore_into_another_data_folder(
    cli_env: Path, runner: CliRunner, clean_env: pytest.MonkeyPatch
) -> None:
    _seed(cli_env / "data", 7, 30)
    target = cli_env / "backups" / "today.sqlite3"
    done = runner.invoke(app, ["backup", str(target)])
    assert done.exit_code == 0, done.output
    assert "Backed up 1 sources, 30 messages" in done.stdout
    assert target.is_file()

    again = runner.invoke(app, ["backup", str(target)])
    assert again.exit_code == 1
    _one_error_line(again.stderr, "exists; use --force to replace it")
    assert runner.invoke(app, ["backup", str(target), "--force"]).exit_code == 0

    refused = runner.invoke(app, ["restore", str(target)])
    assert refused.exit_code == 1
    _one_error_line(refused.stderr, "is not empty (1 source); use --force")

    missing = runner.invoke(app, ["restore", str(cli_env / "nope.sqlite3")])
    assert missing.exit_code == 1
    _one_error_line(missing.stderr, "no backup file at")

    state.reset()
    clean_env.setenv("MLENS_DATA_DIR", str(cli_env / "other"))
    _seed(cli_env / "other", 9, 3)
    forced = runner.invoke(app, ["restore", str(target), "--force"])
    assert forced.exit_code == 0, forced.output
    assert "Restored 1 sources, 30 messages" in forced.stdout
    state.reset()
    assert _messages(cli_env / "other") == {7: 30}


def test_backup_onto_the_stores_own_files_or_a_pipe_is_one_line(
    cli_env: Path, runner: CliRunner
) -> None:
    _seed(cli_env / "data", 7, 5)
    live = cli_env / "data" / "mlens.sqlite3"
    for side in ("-wal", "-shm", "-journal"):
        done = runner.invoke(app, ["backup", f"{live}{side}", "--force"])
        assert done.exit_code == 1, done.output
        _one_error_line(done.stderr, f"mlens.sqlite3{side})")
    pipe = cli_env / "pipe"
    os.mkfifo(pipe)
    done = runner.invoke(app, ["backup", str(pipe), "--force"])
    assert done.exit_code == 1
    _one_error_line(done.stderr, "is a named pipe")
    assert pipe.is_fifo()
    state.reset()
    assert _messages(cli_env / "data") == {7: 5}


def test_restore_of_a_newer_schema_is_one_line(
    cli_env: Path, runner: CliRunner, clean_env: pytest.MonkeyPatch
) -> None:
    _seed(cli_env / "data", 7, 5)
    target = cli_env / "b.sqlite3"
    assert runner.invoke(app, ["backup", str(target)]).exit_code == 0
    with sqlite3.connect(target) as db:
        db.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', '2030')")
    state.reset()
    clean_env.setenv("MLENS_DATA_DIR", str(cli_env / "other"))
    done = runner.invoke(app, ["restore", str(target)])
    assert done.exit_code == 1
    _one_error_line(done.stderr, "has a newer schema than this version knows (m999_from_the")
