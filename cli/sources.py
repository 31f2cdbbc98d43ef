"""``mlens sources`` and ``mlens messages``: what the store holds."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from cli.filters import JsonOption, SenderOption, TopicOption
from cli.state import console, print_json, print_table, settings, workspace
from toolkit.models import iso_z


def _when(value: Any) -> str:
    return iso_z(value) if value is not None else "—"


def sources(as_json: JsonOption = False) -> None:
    """List the sources in the store with message counts, time span and forum topics."""
    table = workspace().sources()
    if as_json:
        print_json(table.to_dicts())
        return
    if not table:
        console.print("The store is empty: try `mlens demo` or `mlens import FILE`.")
        return
    out = Table(title=f"Sources in {settings().store_label}")
    for column in ("ref", "title", "kind", "messages", "first", "last", "last sync"):
        out.add_column(column, justify="right" if column == "messages" else "left")
    for row in table:
        out.add_row(
            row["ref"],
            row["title"],
            row["kind"],
            str(row["messages"]),
            _when(row["first_message_at"]),
            _when(row["last_message_at"]),
            _when(row["last_synced_at"]),
        )
        for topic in row.get("topics") or []:
            out.add_row(
                "", f"  # {topic['topic_id']} {topic['title']}", "topic", str(topic["messages"])
            )
    print_table(out)


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
    topic: TopicOption = None,
    sender: SenderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the most recent messages of a source (of one topic, some senders), oldest first."""
    ws = workspace()
    source = ws.source(ref)
    table = ws.messages(
        source,
        since=since,
        until=until,
        limit=limit,
        include_service=service_messages,
        topic_id=topic,
        sender_peer_ids=sender or None,
    )
    if as_json:
        print_json(table.to_dicts())
        return
    out = Table(title=f"{source.title} — {len(table)} messages")
    for column in ("id", "posted (UTC)", "sender", "text", "link"):
        out.add_column(column, overflow="fold")
    for m in table:
        text = m["text"] if not m["media"] else f"[{m['media']}] {m['text']}".strip()
        out.add_row(
            str(m["messenger_message_id"]),
            iso_z(m["posted_at"]),
            m["sender"] or "",
            text[:300],
            m["message_link"],
        )
    print_table(out)
