"""``mlens alert add / list / remove / run-now / resend``: new messages matching a saved search,
posted as they land (docs/delivery.md "Alerts").

The destination options, their secrets and the states shown: ``cli.destinations``.
"""

from typing import TYPE_CHECKING, Annotated

import typer

from cli.destinations import (
    BotTokenOption,
    EmailOption,
    TelegramOption,
    WebhookOption,
    WebhookSecretOption,
    remove_command,
    resend_command,
    say_added,
    say_done,
    say_listed,
)
from cli.destinations import destinations as named
from cli.filters import JsonOption
from cli.render import literal
from cli.state import console, workspace
from toolkit.limits import DEFAULT_ALERTS_PER_HOUR, MAX_ALERTS_PER_HOUR

if TYPE_CHECKING:
    from toolkit.workspace import AlertOut


def add(
    query: Annotated[str, typer.Argument(help="The saved search.")],
    min_score: Annotated[
        float,
        typer.Option("--min-score", help="The score (0..1, as `mlens search` shows it) to reach."),
    ],
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source", metavar="REF", help="A source to watch (repeatable; default: all)."
        ),
    ] = None,
    per_hour: Annotated[
        int,
        typer.Option(
            "--per-hour",
            help=f"Posts an hour at most (1..{MAX_ALERTS_PER_HOUR}); the rest counted.",
        ),
    ] = DEFAULT_ALERTS_PER_HOUR,
    telegram: TelegramOption = None,
    bot_token: BotTokenOption = None,
    webhook: WebhookOption = None,
    webhook_secret: WebhookSecretOption = None,
    email: EmailOption = None,
    as_json: JsonOption = False,
) -> None:
    """Post each new message matching QUERY with a score of at least --min-score."""
    from toolkit.workspace import AlertRequest

    destinations, made_secret = named(telegram, bot_token, webhook, webhook_secret, email)
    request = AlertRequest(
        query=query,
        source_refs=source or None,
        min_score=min_score,
        max_per_hour=per_hour,
        destinations=destinations,
    )
    added = workspace().add_alert(request)
    say_added("alert", added, made_secret, as_json=as_json)


def list_(as_json: JsonOption = False) -> None:
    """List the alerts, their latest post and each destination's state (secrets hidden)."""
    say_listed(
        workspace().alerts(),
        title="Alerts",
        columns=("query", "sources", "score ≥", "last hour"),
        cells=_cells,
        empty='No alerts yet: add one with `mlens alert add "QUERY" --min-score 0.3`.',
        as_json=as_json,
    )


def _cells(a: "AlertOut") -> tuple[str, ...]:
    """An alert's row in ``list``, between its id and its destinations."""
    hour = f"{a.posts_last_hour}/{a.max_per_hour}" + (f", {a.held} held" if a.held else "")
    sources = ", ".join(a.source_refs) if a.source_refs else "all"
    return literal(a.query), literal(sources), f"{a.min_score:g}", hour


remove = remove_command(
    "alert", "Remove an alert and its posts.", lambda ws, alert_id: ws.remove_alert(alert_id)
)


def run_now(
    alert_id: Annotated[int, typer.Argument(metavar="ID")], as_json: JsonOption = False
) -> None:
    """Post an alert's new matches now (within its cap per hour)."""
    done = workspace().run_alert_now(alert_id)
    if not as_json:
        console().print(
            f"{done.posts_last_hour} post(s) in the last hour; {done.held} held back.",
            highlight=False,
        )
    say_done(done, as_json=as_json)


resend = resend_command(
    "alert",
    "Post",
    lambda ws, alert_id: ws.alert(alert_id).destinations,
    lambda ws, alert_id: ws.resend_alert_uncertain(alert_id),
)
