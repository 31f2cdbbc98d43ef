"""``mlens import`` of an HTML export's folder and of archives; an unsafe one is one line."""

from __future__ import annotations

import zipfile
from pathlib import Path

import html_chats as hc
from export_html_builder import write_html
from typer.testing import CliRunner

from cli import app
from cli.state import store
from toolkit.refs import parse_ref


def test_cli_imports_an_html_export_folder_with_its_chat_id(
    runner: CliRunner, cli_env: Path
) -> None:
    folder = write_html(cli_env / "ChatExport", hc.group(), per_page=7)
    args = ["import", str(folder), "--ref", "c/1500000001", "--no-progress", "--no-embed"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Garden Club" in result.stdout
    assert "HTML export, 5 pages" in result.stdout
    assert (
        store().count_messages(store().get_source(parse_ref("c/1500000001")).id) == 26
    )  # + 5 service


def test_cli_refuses_a_zip_bomb_in_one_line(runner: CliRunner, cli_env: Path) -> None:
    bomb = cli_env / "export.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ChatExport/messages.html", b" " * (16 * 1024 * 1024))
    result = runner.invoke(app, ["import", str(bomb), "--no-progress", "--no-embed"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: cannot import export.zip: the member")
    assert "zip bomb" in lines[0]
