"""Core ``mlens`` commands: sources, messages, demo, serve."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from toolkit.cli.app import app, console, parse_when, settings, store
from toolkit.models import iso_z
from toolkit.refs import message_link, parse_ref


def _when(value: object) -> str:
    return iso_z(value) if value is not None else "—"  # type: ignore[arg-type]


@app.command()
def sources() -> None:
    """List the sources in the store with message counts and time span."""
    rows = store().list_sources()
    if not rows:
        console.print("The store is empty: try `mlens demo` or `mlens import FILE`.")
        return
    table = Table(title=f"Sources in {settings().store_label}")
    for column in ("ref", "title", "kind", "messages", "first", "last", "last sync"):
        table.add_column(column, justify="right" if column == "messages" else "left")
    for stats in rows:
        table.add_row(
            stats.source.key,
            stats.source.title,
            stats.source.kind.value,
            str(stats.message_count),
            _when(stats.first_message_at),
            _when(stats.last_message_at),
            _when(stats.last_synced_at),
        )
    console.print(table)


@app.command()
def messages(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    since: Annotated[
        str | None, typer.Option(help="From this ISO 8601 time (UTC if naive).")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Up to this ISO 8601 time (inclusive).")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000, help="Most recent N messages.")] = 50,
    service_messages: Annotated[
        bool, typer.Option("--service/--no-service", help="Include service messages.")
    ] = False,
) -> None:
    """Print the most recent messages of a source, oldest first."""
    source = store().get_source(parse_ref(ref))
    rows = store().recent_messages(
        source.id,
        limit,
        since=parse_when(since, "--since"),
        until=parse_when(until, "--until"),
        include_service=service_messages,
    )
    table = Table(title=f"{source.title} — {len(rows)} messages")
    for column in ("id", "posted (UTC)", "sender", "text", "link"):
        table.add_column(column, overflow="fold")
    for m in rows:
        text = m.text if not m.media else f"[{m.media}] {m.text}".strip()
        table.add_row(
            str(m.messenger_message_id),
            iso_z(m.posted_at),
            m.sender_name or m.sender_peer_id or "",
            text[:300],
            message_link(source, m.messenger_message_id),
        )
    console.print(table)
