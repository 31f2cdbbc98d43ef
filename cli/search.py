"""``mlens search REF "query"``: the hybrid search from the command line, as a table."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cli.filters import JsonOption, SenderOption, TopicOption
from cli.state import print_json, print_table, workspace
from toolkit.models import SearchHit

_SIGNALS = ("semantic", "lexical", "phrase", "short_factor")


def _preview(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def hits_table(hits: list[SearchHit], *, query: str, explain: bool) -> Table:
    """The hits as a rich table: rank, score, time, id, text (and signals with explain)."""
    table = Table(title=f"{len(hits)} hits for {query!r}", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("posted (UTC)")
    table.add_column("id", justify="right")
    table.add_column("text", overflow="fold")
    if explain:
        for name in _SIGNALS:
            table.add_column(name.replace("_factor", ""), justify="right")
    for rank, hit in enumerate(hits, 1):
        row = [
            str(rank),
            f"{hit.score:.3f}",
            hit.posted_at.strftime("%Y-%m-%d %H:%M"),
            f"[link={hit.message_link}]{hit.messenger_message_id}[/link]",
            escape(_preview(hit.text)),
        ]
        if explain and hit.signals is not None:
            row += [f"{hit.signals[name]:.3f}" for name in _SIGNALS]
        table.add_row(*row)
    return table


def search(
    ref: Annotated[str, typer.Argument(help="The source: @handle, a t.me link or t.me/c/<id>.")],
    query: Annotated[str, typer.Argument(help="What to look for.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="Hits to show.")] = 20,
    scan: Annotated[
        int, typer.Option(min=1, max=10000, help="Most recent messages to scan.")
    ] = 200,
    from_: Annotated[
        str | None, typer.Option("--from", help="Scan messages posted from (ISO 8601).")
    ] = None,
    to: Annotated[str | None, typer.Option("--to", help="... up to (ISO 8601).")] = None,
    explain: Annotated[bool, typer.Option(help="Show each hit's four signals.")] = False,
    topic: TopicOption = None,
    sender: SenderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the recent messages of a stored source (of one topic, some senders)."""
    hits = workspace().search(
        ref,
        query,
        limit=limit,
        scan_messages_limit=scan,
        period_from=from_,
        period_to=to,
        explain=explain,
        topic_id=topic,
        sender_peer_ids=sender or None,
    )
    if as_json:
        print_json(list(hits))
        return
    print_table(hits_table(list(hits), query=query, explain=explain))
