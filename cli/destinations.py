"""Where ``mlens schedule add`` and ``mlens alert add`` deliver: the destination options
both take, the destinations built from them, what both say once one is added, the table
``list`` prints, each destination's state as ``list`` and ``run-now`` show it, and the
``remove`` and ``resend`` commands both groups have, made for each from its noun.

A webhook secret left out is made here and printed once, on stderr; secrets given are
stored as given and never printed again.
"""

from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from cli.filters import JsonOption
from cli.render import literal, print_json, print_table
from cli.state import console, err_console, workspace

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from pydantic import BaseModel

    from toolkit.workspace import AlertOut, DestinationOut, ScheduleOut, Workspace

_Listed = TypeVar("_Listed", "AlertOut", "ScheduleOut")

TelegramOption = Annotated[
    list[str] | None, typer.Option("--telegram", metavar="CHAT", help="A chat id (repeatable).")
]
BotTokenOption = Annotated[
    str | None,
    typer.Option(envvar="MLENS_TELEGRAM_BOT_TOKEN", help="Bot token for --telegram."),
]
WebhookOption = Annotated[
    list[str] | None, typer.Option("--webhook", metavar="URL", help="A URL (repeatable).")
]
WebhookSecretOption = Annotated[
    str | None, typer.Option(help="Signing secret for --webhook (made when left out).")
]
EmailOption = Annotated[
    list[str] | None, typer.Option("--email", metavar="ADDRESS", help="Mail to (repeatable).")
]


def destinations(
    telegram: list[str] | None,
    bot_token: str | None,
    webhook: list[str] | None,
    webhook_secret: str | None,
    email: list[str] | None,
    *,
    feed: bool = False,
) -> tuple[list[dict[str, Any]], str | None]:
    """The destinations the options name, and the webhook secret made here (``None``
    when one was given or no webhook is named)."""
    made_secret = None
    if webhook and not webhook_secret:
        import secrets

        webhook_secret = made_secret = secrets.token_urlsafe(32)
    out: list[dict[str, Any]] = [
        {"kind": "telegram", "chat_id": c, "bot_token": bot_token} for c in telegram or []
    ]
    out += [{"kind": "webhook", "url": u, "secret": webhook_secret} for u in webhook or []]
    out += [{"kind": "email", "to": email}] if email else []
    out += [{"kind": "feed"}] if feed else []
    return out, made_secret


def say_added(noun: str, added: "BaseModel", made_secret: str | None, *, as_json: bool) -> None:
    """Print a webhook secret made here (once, on stderr) and what was added: its JSON
    with ``as_json``, else "Added <noun> <id>."."""
    if made_secret:
        err_console().print(
            f"Webhook signing secret (shown once; the receiver checks X-Mlens-Signature "
            f"with it):\n{made_secret}",
            highlight=False,
            soft_wrap=True,
        )
    if as_json:
        print_json(added.model_dump(mode="json"))
        return
    console().print(f"Added {noun} {getattr(added, 'id', '')}.", highlight=False)


def states(destinations: "Iterable[DestinationOut]") -> str:
    """Each destination's state on a line of its own, with why it failed or may not have
    arrived (a table cell)."""
    return "\n".join(
        f"{d.label}: {d.state}" + (f" ({d.detail})" if d.state in ("failed", "uncertain") else "")
        for d in destinations
    )


def say_listed(
    items: "Sequence[_Listed]",
    *,
    title: str,
    columns: "Sequence[str]",
    cells: "Callable[[_Listed], Sequence[str]]",
    empty: str,
    as_json: bool,
) -> None:
    """``mlens schedule list`` and ``mlens alert list``: the items' JSON with ``as_json``,
    else ``empty`` when there are none, else a table titled ``title``: the id, the
    ``columns`` (``cells`` of an item, markup already escaped) and the destinations' states."""
    if as_json:
        print_json({"items": [item.model_dump(mode="json") for item in items]})
        return
    if not items:
        console().print(empty)
        return
    from rich.table import Table

    table = Table(title=title)
    for column in ("id", *columns, "destinations"):
        table.add_column(column, justify="right" if column == "id" else "left")
    for item in items:
        table.add_row(str(item.id), *cells(item), literal(states(item.destinations)))
    print_table(table)


def say_done(done: Any, *, as_json: bool) -> None:
    """What a delivery did: the schedule's or alert's JSON with ``as_json``, else each
    destination's state."""
    if as_json:
        print_json(done.model_dump(mode="json"))
        return
    say_states(done.destinations)


def say_states(destinations: "Iterable[DestinationOut]") -> None:
    """Print each destination's state and what it answered (after ``run-now``)."""
    for d in destinations:
        detail = f" ({literal(d.detail)})" if d.detail else ""
        console().print(f"{d.label}: {d.state}{detail}", highlight=False)


def remove_command(
    noun: str, doc: str, remove: "Callable[[Workspace, int], object]"
) -> "Callable[[int], None]":
    """``mlens <noun> remove ID``: ``remove(workspace, ID)``, then "Removed <noun> ID."
    (``doc`` is the command's help)."""

    def command(item_id: Annotated[int, typer.Argument(metavar="ID")]) -> None:
        remove(workspace(), item_id)
        console().print(f"Removed {noun} {item_id}.", highlight=False)

    command.__doc__ = doc
    return command


def resend_command(
    noun: str,
    verb: str,
    destinations: "Callable[[Workspace, int], Iterable[DestinationOut]]",
    resend: "Callable[[Workspace, int], Any]",
) -> "Callable[[int, bool], None]":
    """``mlens <noun> resend ID``: "nothing uncertain" when none of the item's
    ``destinations`` is, else ``resend(workspace, ID)`` and what it did (``say_done``);
    ``verb`` (Post, Send) opens the command's help."""

    def command(
        item_id: Annotated[int, typer.Argument(metavar="ID")], as_json: JsonOption = False
    ) -> None:
        ws = workspace()
        before = destinations(ws, item_id)  # an unknown ID is refused here, JSON or not
        if not as_json and not any(d.state == "uncertain" for d in before):
            console().print(
                f"{noun.capitalize()} {item_id} has nothing uncertain to resend.", highlight=False
            )
            return
        say_done(resend(ws, item_id), as_json=as_json)

    command.__doc__ = (
        f"{verb} again each destination whose outcome is uncertain (its worker stopped "
        "mid-send).\n\nIt may have arrived: resend when the chat or mailbox did not get it."
    )
    return command
