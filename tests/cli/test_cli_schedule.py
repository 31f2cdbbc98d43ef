"""``mlens schedule add / list / remove / run-now`` and ``mlens scheduler --once``
through the real Typer app, on the demo chat, to a webhook receiver on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from delivery_servers import Received, http_server
from typer.testing import CliRunner

from cli import app
from cli.state import workspace
from toolkit.delivery.webhook import verify

pytestmark = pytest.mark.slow


def test_add_run_now_list_and_remove(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The Bot API at a closed port of 127.0.0.1: the Telegram destination fails, alone.
    monkeypatch.setenv("MLENS_TELEGRAM_API_URL", "http://127.0.0.1:9")
    runner = CliRunner()
    workspace().load_demo(embed=False)
    received = Received()
    with http_server(received) as hook:
        added = runner.invoke(
            app,
            [
                "schedule",
                "add",
                "@mlens_demo_en",
                "--at",
                "08:00",
                "--weekly",
                "mon",
                "--webhook",
                hook + "/in",
                "--feed",
                "--bot-token",
                "1:tok",
                "--telegram",
                "-100",
                "--json",
            ],
        )
        assert added.exit_code == 0, added.output
        schedule = json.loads(added.stdout)
        secret = added.stderr.split("\n")[-2].strip()
        assert secret not in added.stdout
        assert "1:tok" not in added.stdout
        ran = runner.invoke(app, ["schedule", "run-now", str(schedule["id"])])
        assert ran.exit_code == 0, ran.output
    assert "atom feed: sent" in ran.stdout
    assert "webhook" in ran.stdout
    ((_, headers, body),) = received.requests
    assert verify(secret, headers["X-Mlens-Timestamp"], body, headers["X-Mlens-Signature"])
    listed = runner.invoke(app, ["schedule", "list", "--json"])
    (item,) = json.loads(listed.stdout)["items"]
    states = {d["label"].split()[0]: d["state"] for d in item["destinations"]}
    assert states == {"telegram": "failed", "webhook": "sent", "atom": "sent"}
    assert secret not in listed.stdout
    table = runner.invoke(app, ["schedule", "list"])
    assert "failed" in table.stdout
    assert (
        runner.invoke(app, ["scheduler", "--once"]).stdout.strip() == "0 run(s), 0 alert post(s)."
    )
    assert runner.invoke(app, ["schedule", "remove", str(schedule["id"])]).exit_code == 0
    gone = runner.invoke(app, ["schedule", "remove", str(schedule["id"])])
    assert gone.exit_code == 1
    assert f"no schedule {schedule['id']}" in gone.stderr


def test_a_bad_rule_is_one_line(cli_env: Path) -> None:
    workspace().load_demo(embed=False)
    bad = CliRunner().invoke(app, ["schedule", "add", "@mlens_demo_en", "--at", "25:99", "--feed"])
    assert bad.exit_code == 1
    assert bad.stderr.startswith("error: time must read HH:MM")


def test_resend_says_when_nothing_is_uncertain_and_an_unknown_id_is_one_line(
    cli_env: Path,
) -> None:
    workspace().load_demo(embed=False)
    runner = CliRunner()
    added = runner.invoke(app, ["schedule", "add", "@mlens_demo_en", "--at", "08:00", "--feed"])
    assert added.exit_code == 0, added.output
    quiet = runner.invoke(app, ["schedule", "resend", "1"])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout.strip() == "Schedule 1 has nothing uncertain to resend."
    unknown = runner.invoke(app, ["schedule", "resend", "99"])
    assert unknown.exit_code == 1
    assert unknown.stderr.strip() == "error: no schedule 99"
