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


def test_cli_import_json_gives_the_count_and_strict_fails_on_a_block_not_stored(
    runner: CliRunner, cli_env: Path
) -> None:
    import json

    folder = write_html(cli_env / "ChatExport", hc.with_bot_buttons(12), per_page=100)
    args = ["import", str(folder), "--no-progress", "--no-embed", "--json", "--strict"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    (source,) = document["sources"]
    assert source["unit"] == "block"
    assert source["seen"] == source["stored"] + source["skipped"] == 15 + 2
    assert source["stored"] == 15
    assert source["skipped_by_reason"] == {"date separator": 2}
    assert document["warnings"] == []

    page = folder / "messages.html"
    page.write_text(page.read_text().replace("Ответ номер 3", '<i id="message999">x</i>'))
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert json.loads(result.stdout)["sources"][0]["skipped_by_reason"]["unreadable block"] == 1
    assert "warning:" in result.stderr
    plain = runner.invoke(app, args[:-2])
    assert plain.exit_code == 0
    assert "warning:" in plain.stderr
    assert "could not be read" in plain.stdout
