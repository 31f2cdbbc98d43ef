"""``mlens search REF "query"``: the hybrid search from the command line, as a table."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.filters import JsonOption, SenderOption, TopicOption, filters
from cli.render import hit_record, print_json, print_table
from cli.state import workspace
from toolkit.notebook import HitList, Table
from toolkit.requests import search_request

_SIGNALS = ("semantic", "lexical", "phrase", "short_factor")
_LABELS = {
    "rank": "#",
    "posted_at": "posted (UTC)",
    "messenger_message_id": "id",
    "short_factor": "short",
}


def hits_table(hits: HitList, *, explain: bool) -> Table:
    """The hits for a terminal: rank, score, time, id, (in a forum) topic, text (and
    signals with explain)."""
    columns = ["rank", "score", "posted_at", "messenger_message_id"]
    columns += ["topic"] if hits.topics else []
    columns += ["text"]
    columns += list(_SIGNALS) if explain else []
    title = f"{len(hits)} hits for {hits.query!r}"
    return hits.table().view(columns, labels=_LABELS, title=title, digits=3)


def search(
    ref: Annotated[str, typer.Argument(help="The source: @handle, a t.me link or t.me/c/<id>.")],
    query: Annotated[str, typer.Argument(help="What to look for.")],
    limit: Annotated[
        int | None,
        typer.Option(min=1, max=100, help="Hits to show; default MLENS_DEFAULT_LIMIT (20)."),
    ] = None,
    scan: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=10000,
            help="Most recent messages to scan; default MLENS_DEFAULT_SCAN_MESSAGES_LIMIT (200).",
        ),
    ] = None,
    from_: Annotated[
        str | None, typer.Option("--from", help="Scan messages posted from (ISO 8601).")
    ] = None,
    to: Annotated[
        str | None,
        typer.Option("--to", help="... up to (ISO 8601, inclusive; a bare day is included whole)."),
    ] = None,
    explain: Annotated[bool, typer.Option(help="Show each hit's four signals.")] = False,
    topic: TopicOption = None,
    sender: SenderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the recent messages of a stored source (of one topic, some senders)."""
    request = search_request(
        ref,
        query,
        period=(from_, to),
        limit=limit,
        scan_messages_limit=scan,
        explain=explain,
        **filters(topic, sender),
    )
    ws = workspace()
    hits = ws.search(request)
    if as_json:
        print_json([hit_record(hit) for hit in hits])
        return
    found = HitList(hits, query=query, source_ref=ref, topics=ws.hit_topics(ref, hits))
    print_table(hits_table(found, explain=explain))
