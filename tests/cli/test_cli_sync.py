"""``mlens sync``: one clear line without credentials; a report of what it fetched."""

from __future__ import annotations

from pathlib import Path

import pytest
from telethon_fakes import TALK_SIZE, FakeTelegram, talk_telegram
from typer.testing import CliRunner

from cli import app, main
from toolkit.ingest.live.client import TelethonMessengerClient

N = TALK_SIZE


@pytest.fixture
def fake() -> FakeTelegram:
    return talk_telegram()


def test_cli_sync_without_credentials_is_one_clear_line(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["mlens", "sync", "@open_talk"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "MLENS_MESSENGER_API_ID" in err
    assert "MLENS_MESSENGER_SESSION" in err
    assert not (cli_env / "data").exists()  # nothing was opened


@pytest.mark.slow
def test_cli_sync_reports_what_it_did(
    cli_env: Path, fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        TelethonMessengerClient,
        "from_settings",
        classmethod(lambda cls, settings: cls(fake)),
    )
    result = CliRunner().invoke(app, ["sync", "t.me/open_talk"])
    assert result.exit_code == 0, result.output
    assert f"fetched {N} messages" in result.output
    assert f"{N} new" in result.output
    again = CliRunner().invoke(app, ["sync", "@OPEN_TALK"])
    assert "fetched 0 messages" in again.output
    assert (cli_env / "data" / "mlens.sqlite3").exists()
