"""``mlens sources``, ``mlens messages`` and ``mlens timezone``: what the store holds."""

from typing import Annotated

import typer

from cli.filters import JsonOption, SenderOption, TopicOption, filters
from cli.render import literal, message_record, print_json, print_table, source_record
from cli.state import console, settings, workspace

MESSAGE_VIEW = [
    "messenger_message_id",
    "posted_at",
    "sender",
    "media",
    "text",
    "reactions",
    "message_link",
]
LABELS = {
    "first_message_at": "first",
    "last_message_at": "last",
    "last_synced_at": "last sync",
    "timezone": "zone",
    "messenger_message_id": "id",
    "posted_at": "posted (UTC)",
    "message_link": "link",
}
"""Shorter column names for a terminal."""
_ORIGINS = {
    "set": " (set)",
    "inferred": " (inferred from when its people write)",
    "export": " (the export's offset)",
}
"""Where a zone comes from, as ``mlens timezone`` says it."""


def sources(as_json: JsonOption = False) -> None:
    """List the sources in the store with message counts, time span and forum topics."""
    stats = workspace().sources()
    if as_json:
        print_json([source_record(s) for s in stats])
        return
    # Imported here: tables are for a terminal (--json and --help never need them).
    from toolkit.notebook import Table
    from toolkit.notebook.tables import SOURCE_COLUMNS, sources_table

    table = sources_table(stats)
    if not table:
        console().print("The store is empty: try `mlens demo` or `mlens import FILE`.")
        return
    rows = []
    for row in table:
        rows.append(row)
        rows += [
            {
                "title": f"  # {t['topic_id']} {t['title']}",
                "kind": "topic",
                "messages": t["messages"],
            }
            for t in row.get("topics") or []
        ]
    title = f"Sources in {settings().store_label}"
    view = [column for column in SOURCE_COLUMNS if column != "topics"]
    print_table(Table(rows, columns=table.columns).view(view, labels=LABELS, title=title))


def messages(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    since: Annotated[
        str | None, typer.Option(help="From this ISO 8601 time (UTC if naive).")
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(help="Up to this ISO 8601 time (inclusive; a bare day is included whole)."),
    ] = None,
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
    rows = ws.recent_messages(  # a link into a forum topic lists that topic
        ref,
        since=since,
        until=until,
        limit=limit,
        include_service=service_messages,
        **filters(topic, sender),
    )
    if as_json:
        print_json([message_record(source, m) for m in rows])
        return
    from toolkit.notebook.tables import messages_table

    title = f"{source.title} — {len(rows)} messages"
    table = messages_table(source, rows)
    print_table(table.view(MESSAGE_VIEW, labels=LABELS, title=title))


def timezone(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    zone: Annotated[
        str | None,
        typer.Argument(
            help="IANA name (Europe/Berlin) or UTC offset (+09:00), or `auto` to infer it "
            "from when the source's people write; without it, show the source's zone."
        ),
    ] = None,
) -> None:
    """Show or set a source's own time zone, in which summaries read its times."""
    ws = workspace()
    source = ws.source(ref) if zone is None else ws.set_timezone(ref, zone)
    label = literal(f"{source.key} ({source.title})", one_line=True)
    shown = literal(source.timezone) if source.timezone else "not known (read as UTC)"
    origin = _ORIGINS.get(source.timezone_origin or "", "") if source.timezone else ""
    console().print(f"{label}: time zone {shown}{origin}", highlight=False)
