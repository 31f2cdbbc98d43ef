"""``--json`` on the listing commands (the API's field names), and tables a pipe can read."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from chat_fixture import HANDLE, TEXTS, messages, write_export
from export_builders import chat, custom_reaction, emoji_reaction, message, paid_reaction, write
from typer.testing import CliRunner

from cli import app
from cli.state import workspace
from toolkit.models import SearchHit

MESSAGE_FIELDS = [
    "messenger_message_id",
    "text",
    "sender_peer_id",
    "sender_name",
    "posted_at",
    "message_link",
    "reply_to",
    "reactions",
]
SOURCE_FIELDS = [
    "source_ref",
    "title",
    "kind",
    "message_count",
    "first_message_at",
    "last_message_at",
    "last_synced_at",
    "link",
    "topics",
    "timezone",
    "timezone_origin",
]
HIT_FIELDS = {field.name for field in dataclasses.fields(SearchHit)}


def run_json(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def trip(runner: CliRunner, cli_env: Path) -> str:
    """The trip chat imported through ``mlens import`` (not embedded); returns its handle."""
    path = write_export(cli_env / "result.json")
    args = ["import", str(path), "--ref", HANDLE, "--no-progress", "--no-embed"]
    imported = runner.invoke(app, args)
    assert imported.exit_code == 0, imported.output
    return HANDLE


def days_of_export() -> dict[str, date]:
    return {
        str(m["id"]): datetime.fromtimestamp(int(m["date_unixtime"]), tz=UTC).date()
        for m in messages()
    }


def test_sources_json(runner: CliRunner, trip: str) -> None:
    doc = run_json(runner, "sources")
    assert [list(s) for s in doc] == [SOURCE_FIELDS]
    assert doc[0]["source_ref"] == trip
    assert doc[0]["kind"] == "chat"
    assert doc[0]["message_count"] == len(TEXTS)
    assert doc[0]["first_message_at"].endswith("Z")


def test_messages_json_until_a_bare_day_includes_that_day(runner: CliRunner, trip: str) -> None:
    days = days_of_export()
    doc = run_json(runner, "messages", trip, "--until", "2026-03-03", "--limit", "1000")
    assert all(list(m) == MESSAGE_FIELDS for m in doc)
    expected = [i for i, day in days.items() if day <= date(2026, 3, 3)]
    assert [m["messenger_message_id"] for m in doc] == expected
    assert any(days[i] == date(2026, 3, 3) for i in expected)
    one_day = run_json(runner, "messages", trip, "--since", "2026-03-03", "--until", "2026-03-03")
    same_day = [i for i, day in days.items() if day == date(2026, 3, 3)]
    assert [m["messenger_message_id"] for m in one_day] == same_day
    # The workspace reads the same bounds the same way.
    rows = workspace().recent_messages(trip, since="2026-03-03", until="2026-03-03")
    assert [str(m.messenger_message_id) for m in rows] == same_day
    first = doc[0]
    assert first["sender_name"] == "Boris"
    assert first["sender_peer_id"] == "user102"
    assert first["message_link"] == f"https://t.me/{trip[1:]}/{first['messenger_message_id']}"


def test_messages_json_shows_reactions_as_counts_by_emoji(runner: CliRunner, cli_env: Path) -> None:
    reactions = [emoji_reaction("👍", 2), custom_reaction("42", 1), paid_reaction(10)]
    export = chat(
        [message(1, "see you at 13:40", reactions=reactions), message(2, "ok")],
        name="Reacted",
        type_="public_supergroup",
        id_=1_444_000_001,
    )
    path = write(cli_env / "result.json", export)
    args = ["import", str(path), "--ref", "@reacted_chat", "--no-progress", "--no-embed"]
    assert runner.invoke(app, args).exit_code == 0
    doc = run_json(runner, "messages", "@reacted_chat")
    assert [m["reactions"] for m in doc] == [{"paid": 10, "👍": 2, "custom:42": 1}, {}]
    assert list(doc[0]["reactions"]) == ["paid", "👍", "custom:42"]  # the most given first
    table = runner.invoke(app, ["messages", "@reacted_chat"])
    assert "paid 10  👍 2  custom:42 1" in table.stdout  # and for people, in the table


@pytest.mark.slow
def test_search_json_items_are_the_api_hits(runner: CliRunner, trip: str) -> None:
    doc = run_json(runner, "search", trip, "train tickets to Berlin", "--limit", "3", "--explain")
    assert len(doc) == 3
    hit = doc[0]
    assert set(hit) == HIT_FIELDS
    assert hit["source_ref"] == trip
    assert set(hit["signals"]) == {"semantic", "lexical", "phrase", "short_factor"}
    assert "train" in hit["text"].lower()
    assert 0 <= hit["score"] <= 1


def test_keys_list_json(runner: CliRunner, cli_env: Path) -> None:
    assert run_json(runner, "keys", "list") == []
    token = runner.invoke(app, ["keys", "create", "-s", "search.read", "-n", "bot"]).stdout
    [key] = run_json(runner, "keys", "list")
    assert key["prefix"] == token.strip()[:12]
    assert key["scopes"] == ["search.read"]
    assert key["revoked_at"] is None
    assert token.strip()[13:] not in json.dumps(key)


def test_a_table_in_a_pipe_keeps_refs_and_titles_whole(runner: CliRunner, cli_env: Path) -> None:
    data = {
        "name": "A private channel with a rather long title that a narrow table would wrap",
        "type": "private_channel",
        "id": 1987654321,
        "messages": [{"id": 1, "type": "message", "date_unixtime": "1700000000", "text": "hi"}],
    }
    path = cli_env / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert runner.invoke(app, ["import", str(path), "--no-progress", "--no-embed"]).exit_code == 0
    listed = runner.invoke(app, ["sources"])
    row = next(line for line in listed.stdout.splitlines() if "c/1987654321" in line)
    assert data["name"] in row
