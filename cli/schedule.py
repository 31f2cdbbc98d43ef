"""``mlens schedule add / list / remove / run-now / resend`` and ``mlens scheduler``: digests
delivered on a schedule (docs/delivery.md).

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

if TYPE_CHECKING:
    from toolkit.workspace import ScheduleOut


def add(
    source: Annotated[str, typer.Argument(help="@handle, t.me link or c/<id> of a stored source.")],
    at: Annotated[str, typer.Option("--at", help="HH:MM in the source's time zone.")],
    weekly: Annotated[
        str | None, typer.Option("--weekly", metavar="DAY", help="Weekly on DAY (mon..sun).")
    ] = None,
    language: Annotated[str, typer.Option(help="The digest's language.")] = "en",
    engine: Annotated[
        str | None, typer.Option(help="auto, extractive, llm or hybrid (default: settings').")
    ] = None,
    topic: Annotated[int | None, typer.Option(help="Only this forum topic.")] = None,
    telegram: TelegramOption = None,
    bot_token: BotTokenOption = None,
    webhook: WebhookOption = None,
    webhook_secret: WebhookSecretOption = None,
    email: EmailOption = None,
    feed: Annotated[bool, typer.Option("--feed", help="An Atom feed at /v1.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Schedule a source's digest, daily (or --weekly DAY) at --at in its own zone."""
    from toolkit.workspace import Rule, ScheduleSpec, parse_destinations

    destinations, made_secret = named(
        telegram, bot_token, webhook, webhook_secret, email, feed=feed
    )
    spec = ScheduleSpec(
        source_ref=source,
        rule=Rule.parse("weekly" if weekly else "daily", at, weekly),
        destinations=parse_destinations(destinations),
        language=language,
        engine=engine,
        topic_id=topic,
    )
    added = workspace().add_schedule(spec)
    say_added("schedule", added, made_secret, as_json=as_json)


def list_(as_json: JsonOption = False) -> None:
    """List the schedules, their last run and each destination's state (secrets hidden)."""
    say_listed(
        workspace().schedules(),
        title="Digest schedules",
        columns=("source", "when", "language", "last period"),
        cells=_cells,
        empty="No schedules yet: add one with `mlens schedule add SOURCE --at 08:00`.",
        as_json=as_json,
    )


def _cells(s: "ScheduleOut") -> tuple[str, ...]:
    """A schedule's row in ``list``, between its id and its destinations."""
    when = f"{s.weekday + ' ' if s.weekday else 'daily '}{s.at}"
    run = s.last_run
    period = "—"
    if run is not None:
        period = f"{run.period_start:%Y-%m-%d %H:%M} – {run.period_end:%H:%M} UTC ({run.status})"
    return literal(s.source_ref), when, s.language, period


remove = remove_command(
    "schedule",
    "Remove a schedule and its runs.",
    lambda ws, schedule_id: ws.remove_schedule(schedule_id),
)


def run_now(
    schedule_id: Annotated[int, typer.Argument(metavar="ID")], as_json: JsonOption = False
) -> None:
    """Deliver a schedule's digest now, of what came since its last one."""
    say_done(workspace().run_schedule_now(schedule_id), as_json=as_json)


resend = resend_command(
    "schedule",
    "Send",
    lambda ws, schedule_id: ws.schedule(schedule_id).destinations,
    lambda ws, schedule_id: ws.resend_uncertain(schedule_id),
)


def scheduler(
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit.")] = False,
) -> None:
    """Run due digest schedules (and check alerts) until stopped.

    `mlens serve` runs them too (MLENS_DELIVERY_RUNNER); a lease in the store delivers each
    period (and each alert's match) once however many run.
    """
    import threading

    ws = workspace()
    runner = ws.delivery_runner()
    if once:
        runs = runner.run_pending()
        posts = runner.alerts.run_pending() if runner.alerts is not None else []
        console().print(f"{len(runs)} run(s), {len(posts)} alert post(s).", highlight=False)
        return
    console().print(
        f"Running due schedules every {ws.settings.delivery.poll_seconds:g} s; Ctrl-C stops.",
        highlight=False,
    )
    stop = threading.Event()
    try:
        runner.serve(stop)
    except KeyboardInterrupt:
        stop.set()
