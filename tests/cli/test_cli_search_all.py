"""``mlens search --all QUERY``: every stored source (or each ``--source``) as one ranking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chat_fixture import HANDLE, write_export
from typer.testing import CliRunner

from cli import app

OTHER = "@trip_planning_two"


def run(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def two_chats(runner: CliRunner, cli_env: Path) -> tuple[str, str]:
    """The trip chat, and a second chat of the same texts under another id and handle."""
    first = write_export(cli_env / "result.json")
    data = json.loads(first.read_text(encoding="utf-8"))
    data.update(name="Trip planning, again", id=4343)
    second = cli_env / "second.json"
    second.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for path, ref in ((first, HANDLE), (second, OTHER)):
        run(runner, "import", str(path), "--ref", ref, "--no-progress", "--no-embed")
    return HANDLE, OTHER


@pytest.mark.slow
def test_search_all_ranks_every_source_as_one_list(
    runner: CliRunner, two_chats: tuple[str, str]
) -> None:
    query = "train tickets to Berlin"
    doc = json.loads(run(runner, "search", "--all", query, "--limit", "6", "--json").stdout)
    assert {hit["source_ref"] for hit in doc} == set(two_chats)
    scores = [hit["score"] for hit in doc]
    assert scores == sorted(scores, reverse=True)
    # The same texts in both chats score the same: they come in pairs.
    assert scores[0] == scores[1]
    assert {doc[0]["source_title"], doc[1]["source_title"]} == {
        "Trip planning",
        "Trip planning, again",
    }
    alone = run(runner, "search", "--all", query, "--source", HANDLE, "--json").stdout
    single = run(runner, "search", HANDLE, query, "--json").stdout
    assert json.loads(alone) == json.loads(single)
    table = run(runner, "search", "--all", query, "--limit", "3").stdout
    assert "in all sources" in table
    assert OTHER in table or HANDLE in table


def test_search_all_takes_the_query_alone(runner: CliRunner, cli_env: Path) -> None:
    result = runner.invoke(app, ["search", "--all", "train", "tickets"])
    assert result.exit_code == 2
    assert "mlens search --all QUERY" in result.output
    empty = runner.invoke(app, ["search", "--all", "train", "--json"])
    assert empty.exit_code == 0, empty.output
    assert json.loads(empty.stdout) == []
