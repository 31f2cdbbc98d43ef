"""``mlens keys create / list / revoke`` through the real Typer app."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app, main
from cli.state import store
from toolkit.apikeys import verify_api_key
from toolkit.errors import AuthenticationError


def test_create_prints_the_key_once_on_stdout(cli_env: Path) -> None:
    result = CliRunner().invoke(
        app, ["keys", "create", "--scope", "search.read", "-s", "sources.read", "--name", "bot"]
    )
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert "\n" not in token
    assert "will not be shown again" in result.stderr
    record = verify_api_key(store(), token)
    assert record.scopes == {"search.read", "sources.read"}
    assert record.name == "bot"


def test_list_shows_prefixes_never_secrets(cli_env: Path) -> None:
    runner = CliRunner()
    token = runner.invoke(app, ["keys", "create", "-s", "summary.run", "-n", "reporter"]).stdout
    token = token.strip()
    result = runner.invoke(app, ["keys", "list"])
    assert result.exit_code == 0
    assert token[:12] in result.stdout
    assert token[13:] not in result.stdout
    assert "reporter" in result.stdout
    assert "summary.run" in result.stdout


def test_revoke_by_prefix(cli_env: Path) -> None:
    runner = CliRunner()
    token = runner.invoke(app, ["keys", "create", "-s", "search.read", "-n", "old"]).stdout.strip()
    result = runner.invoke(app, ["keys", "revoke", token[:12]])
    assert result.exit_code == 0, result.output
    assert "Revoked key 1" in result.stdout
    with pytest.raises(AuthenticationError, match="revoked"):
        verify_api_key(store(), token)
    listed = runner.invoke(app, ["keys", "list"]).stdout
    row = next(line for line in listed.splitlines() if token[:12] in line)
    assert row.rstrip(" │").split("│")[-1].strip() != "—"  # the revoked column is filled


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["keys", "create", "--scope", "admin", "--name", "x"], "unknown scope 'admin'"),
        (["keys", "revoke", "mlk_00000000"], "no API key 'mlk_00000000'"),
    ],
)
def test_errors_are_one_line_and_exit_1(
    cli_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr("sys.argv", ["mlens", *argv])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:")
    assert message in err
    assert len(err.splitlines()) == 1
    assert store().list_api_keys() == []
