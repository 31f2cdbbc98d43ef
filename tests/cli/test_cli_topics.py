"""``--topic``, ``--sender``, ``--timezone`` and ``mlens index`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_builders import chat, forum, write
from typer.testing import CliRunner

from cli import app
from cli.state import store

FORUM = "t.me/c/1777000001"


@pytest.fixture
def forum_imported(runner: CliRunner, cli_env: Path) -> Path:
    path = write(cli_env / "result.json", forum())
    result = runner.invoke(app, ["import", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    return path


def _ids(output: str) -> list[int]:
    return [int(row["messenger_message_id"]) for row in json.loads(output)]


@pytest.mark.slow
def test_messages_of_one_topic_and_of_one_sender(runner: CliRunner, forum_imported: Path) -> None:
    topic = runner.invoke(app, ["messages", FORUM, "--topic", "3", "--json"])
    assert topic.exit_code == 0, topic.output
    assert _ids(topic.stdout) == [4, 5, 9]
    rows = json.loads(topic.stdout)
    assert {row["message_link"] for row in rows} == {f"https://{FORUM}/3/{i}" for i in (4, 5, 9)}
    bob = runner.invoke(app, ["messages", FORUM, "--sender", "user1002", "--limit", "1", "--json"])
    assert _ids(bob.stdout) == [11]  # the window is taken after the filter
    both = runner.invoke(app, ["messages", FORUM, "--topic", "3", "--sender", "user1002", "--json"])
    assert _ids(both.stdout) == [5]
    by_link = runner.invoke(app, ["messages", f"https://{FORUM}/6/7", "--json"])
    assert _ids(by_link.stdout) == [7, 11]  # a link into a topic names the topic
    bad = runner.invoke(app, ["messages", FORUM, "--sender", "bob"])
    assert bad.exit_code == 1
    assert "sender ids look like" in bad.stderr


@pytest.mark.slow
def test_search_and_summary_stay_inside_the_topic(runner: CliRunner, forum_imported: Path) -> None:
    hits = runner.invoke(app, ["search", FORUM, "release build", "--topic", "3", "--json"])
    assert hits.exit_code == 0, hits.output
    found = {hit["messenger_message_id"] for hit in json.loads(hits.stdout)}
    assert found
    assert found <= {"4", "5", "9"}
    assert "topic" not in json.loads(hits.stdout)[0]  # the JSON is the HTTP item
    table = runner.invoke(app, ["search", FORUM, "release build"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    (row,) = [line for line in table.stdout.splitlines() if "build 1.2.3" in line]
    assert "Releases" in row, table.stdout  # each hit names its topic
    assert "topic" in table.stdout
    summary = runner.invoke(
        app,
        [
            "summarize", FORUM, "--from", "2024-04-01", "--to", "2024-04-02",
            "--topic", "6", "--json",
        ],
    )  # fmt: skip
    assert summary.exit_code == 0, summary.output
    important = json.loads(summary.stdout)["important_messenger_message_ids"]
    assert important
    assert set(important) <= {"7", "11"}


@pytest.mark.slow
def test_sources_lists_a_forums_topics_with_counts(runner: CliRunner, forum_imported: Path) -> None:
    listed = runner.invoke(app, ["sources", "--json"])
    topics = json.loads(listed.stdout)[0]["topics"]
    assert [(t["topic_id"], t["title"], t["message_count"]) for t in topics] == [
        (1, "General", 2),
        (3, "Releases", 3),
        (6, "Jobs", 2),
    ]


@pytest.mark.slow
def test_import_with_a_time_zone_and_index_resumes(runner: CliRunner, cli_env: Path) -> None:
    old = {"id": 1, "type": "message", "date": "2020-11-12T12:53:52", "from": "A", "text": "hi"}
    path = write(cli_env / "old.json", chat([old], name="Old", type_="private_group", id_=77))
    result = runner.invoke(
        app, ["import", str(path), "--timezone", "Europe/Moscow", "--no-progress", "--no-embed"]
    )
    assert result.exit_code == 0, result.output
    assert "read in Europe/Moscow" in result.stdout
    shown = runner.invoke(app, ["messages", "c/77", "--json"])
    assert json.loads(shown.stdout)[0]["posted_at"] == "2020-11-12T09:53:52Z"
    assert json.loads(shown.stdout)[0]["message_link"] == ""  # basic groups have no links
    indexed = runner.invoke(app, ["index", "c/77", "--no-progress"])
    assert "embedded 1 message" in indexed.stdout
    again = runner.invoke(app, ["index", "--no-progress"])
    assert "embedded 0 messages" in again.stdout
    assert store().count_messages(1) == 1
