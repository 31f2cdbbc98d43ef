"""``mlens alert add / list / run-now / remove / resend`` through the real Typer app: an
import of new messages posts its match to a webhook receiver on 127.0.0.1 at once
(signed), nothing below the score, nothing twice; a Telegram post left uncertain by a
worker that died mid-send is posted again, once, when asked; bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from delivery_checks import die_mid_send
from delivery_servers import Received, http_server
from export_builders import chat, message, write
from typer.testing import CliRunner

from cli import app
from cli.state import workspace
from toolkit.delivery.webhook import verify

pytestmark = pytest.mark.slow

HISTORY = [
    message(1, "Morning all, the weather looks calm today"),
    message(2, "The boat rental costs 40 euros a day at the north pier"),
]
NEW = [
    message(3, "I will bring sandwiches for lunch tomorrow"),
    message(4, "Boat rental prices went up again this week"),
]


def export(path: Path, messages: list[dict[str, object]]) -> str:
    return str(write(path, chat(messages, name="Harbour crew", type_="public_supergroup", id_=777)))


def test_an_import_posts_its_new_match_once(cli_env: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(
        app,
        ["import", export(cli_env / "a.json", HISTORY), "--ref", "@harbour_crew", "--no-progress"],
    )
    assert first.exit_code == 0, first.output
    received = Received()
    with http_server(received) as hook:
        added = runner.invoke(
            app,
            ["alert", "add", "boat rental price", "--min-score", "0.05", "--source",
             "@harbour_crew", "--webhook", hook + "/in", "--per-hour", "5", "--json"],
        )  # fmt: skip
        assert added.exit_code == 0, added.output
        alert = json.loads(added.stdout)
        secret = added.stderr.split("\n")[-2].strip()
        assert secret not in added.stdout
        assert received.requests == []  # the history is not news
        again = runner.invoke(
            app,
            [
                "import",
                export(cli_env / "b.json", HISTORY + NEW),
                "--ref",
                "@harbour_crew",
                "--no-progress",
            ],
        )
        assert again.exit_code == 0, again.output
        ran = runner.invoke(app, ["alert", "run-now", str(alert["id"])])
        assert ran.exit_code == 0, ran.output
    ((_, headers, body),) = received.requests
    assert verify(secret, headers["X-Mlens-Timestamp"], body, headers["X-Mlens-Signature"])
    assert json.loads(body)["match"]["text"] == NEW[1]["text"]
    assert "1 post(s) in the last hour; 0 held back." in ran.stdout
    listed = json.loads(runner.invoke(app, ["alert", "list", "--json"]).stdout)
    (item,) = listed["items"]
    assert [d["state"] for d in item["destinations"]] == ["sent"]
    assert secret not in str(listed)
    assert "boat rental price" in runner.invoke(app, ["alert", "list"]).stdout
    assert runner.invoke(app, ["alert", "remove", str(alert["id"])]).exit_code == 0
    gone = runner.invoke(app, ["alert", "remove", str(alert["id"])])
    assert gone.exit_code == 1
    assert f"no alert {alert['id']}" in gone.stderr


def test_an_uncertain_telegram_post_is_resent_once_on_request(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    received = Received()
    with http_server(received) as bot:
        monkeypatch.setenv("MLENS_TELEGRAM_API_URL", bot)
        history = export(cli_env / "a.json", HISTORY)
        first = runner.invoke(app, ["import", history, "--ref", "@harbour_crew", "--no-progress"])
        assert first.exit_code == 0, first.output
        added = runner.invoke(
            app,
            ["alert", "add", "boat rental price", "--min-score", "0.05", "--telegram", "-100",
             "--bot-token", "1:tok", "--json"],
        )  # fmt: skip
        assert added.exit_code == 0, added.output
        alert_id = str(json.loads(added.stdout)["id"])
        quiet = runner.invoke(app, ["alert", "resend", alert_id])
        assert quiet.exit_code == 0, quiet.output
        assert quiet.stdout.strip() == f"Alert {alert_id} has nothing uncertain to resend."
        news = export(cli_env / "b.json", HISTORY + NEW)
        again = runner.invoke(app, ["import", news, "--ref", "@harbour_crew", "--no-progress"])
        assert again.exit_code == 0, again.output
        assert len(received.requests) == 1
        store = workspace().assembly.store
        (post,) = store.recent_posts(int(alert_id))
        die_mid_send(store.post_ledger(), post.id, owner=post.owner, status="claimed")
        checked = runner.invoke(app, ["alert", "run-now", alert_id])  # the next worker
        assert checked.exit_code == 0, checked.output
        assert "uncertain" in checked.stdout
        assert len(received.requests) == 1  # not posted again unasked
        resent = runner.invoke(app, ["alert", "resend", alert_id, "--json"])
        assert resent.exit_code == 0, resent.output
        assert [d["state"] for d in json.loads(resent.stdout)["destinations"]] == ["sent"]
        assert len(received.requests) == 2
        twice = runner.invoke(app, ["alert", "resend", alert_id])
        assert twice.stdout.strip() == f"Alert {alert_id} has nothing uncertain to resend."
    first_text, second_text = (m["text"] for m in received.json())
    assert first_text == second_text
    assert "Boat rental prices went up" in first_text
    assert "1:tok" not in resent.stdout
    unknown = runner.invoke(app, ["alert", "resend", "99"])
    assert unknown.exit_code == 1
    assert unknown.stderr.strip() == "error: no alert 99"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["", "--min-score", "0.3"], "query"),
        (["boat", "--min-score", "1.5"], "min_score"),
        (["boat", "--min-score", "0.3", "--per-hour", "0"], "max_per_hour"),
        (["boat", "--min-score", "0.3", "--source", "@nobody_here"], "nobody_here"),
    ],
)
def test_bad_input_is_one_line(cli_env: Path, args: list[str], says: str) -> None:
    bad = CliRunner().invoke(app, ["alert", "add", *args, "--email", "ops@example.org"])
    assert bad.exit_code == 1, bad.output
    assert bad.stderr.startswith("error: ")
    assert says in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
