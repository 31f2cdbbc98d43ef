"""Malformed refs and out-of-range times at the CLI: one ``error:`` line, exit 1, no traceback."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from cli.state import store
from toolkit.models import Message, SourceKind


@pytest.fixture
def channel(cli_env: Path) -> str:
    """A public channel with one message; its ref."""
    source = store().upsert_source(
        title="Ops", kind=SourceKind.CHANNEL, internal_id=7, handle="opsroom"
    )
    store().upsert_messages([Message(source.id, 1, datetime(2024, 5, 1, tzinfo=UTC), "hello")])
    return "@opsroom"


def _one_line(runner: CliRunner, args: list[str], *needles: str) -> str:
    result = runner.invoke(app, args)
    assert isinstance(result.exception, SystemExit), result.exception  # not a traceback
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0]
    assert len(lines[0]) < 400
    return lines[0]


@pytest.mark.parametrize(
    "ref", ["https://[t.me/abc", "tg://[resolve", "t.me/opsroom/\u00b2", "@" + "a" * 50_000]
)
def test_a_malformed_ref_is_one_line(runner: CliRunner, channel: str, ref: str) -> None:
    _one_line(runner, ["messages", ref], "invalid source_ref")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--since", "0001-01-01T00:00:00+14:00"),
        ("--until", "9999-12-31T23:59:59-12:00"),
        ("--since", "99999-01-01"),
        ("--until", "2024-05-01T10:00\x00+03:00"),
        ("--since", "1" * 50_000),
    ],
)
def test_an_out_of_range_time_is_one_line(
    runner: CliRunner, channel: str, option: str, value: str
) -> None:
    _one_line(runner, ["messages", channel, option, value])


def test_the_calendars_last_day_is_served_as_an_inclusive_bound(
    runner: CliRunner, channel: str
) -> None:
    result = runner.invoke(
        app, ["messages", channel, "--since", "0001-01-01", "--until", "9999-12-31", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "hello" in result.stdout


def test_a_summary_ending_after_9999_is_one_line(runner: CliRunner, channel: str) -> None:
    line = _one_line(runner, ["summarize", channel, "--from", "2024-05-01", "--to", "9999-12-31"])
    assert "9999-12-31T23:59:59Z" in line


def test_a_search_from_before_year_1_is_one_line(runner: CliRunner, channel: str) -> None:
    _one_line(runner, ["search", channel, "hello", "--from", "0001-01-01T00:00:00+14:00"])


def test_a_hostile_zone_is_one_line(runner: CliRunner, channel: str) -> None:
    _one_line(runner, ["timezone", channel, "z" * 5_000], "unknown time zone")


def test_a_period_at_the_calendars_edge_in_the_sources_zone_is_one_line(
    runner: CliRunner, channel: str
) -> None:
    """``0001-01-01Z`` is in year 0 at -05:00: the summary names its period in that zone."""
    assert runner.invoke(app, ["timezone", channel, "--", "-05:00"]).exit_code == 0
    line = _one_line(
        runner,
        ["summarize", channel, "--from", "0001-01-01T00:00:00Z", "--to", "2024-06-01"],
        "out of range in the source's time zone -05:00",
    )
    assert "0001-01-01T00:00:00Z" in line


def test_a_key_id_past_64_bits_is_one_line(runner: CliRunner, cli_env: Path) -> None:
    _one_line(runner, ["keys", "revoke", "99999999999999999999999"], "no API key")
