"""``mlens search REF "query"``: the hybrid search from the command line, as a table;
``mlens search --all "query"``: every stored source (or each ``--source``) as one ranking."""

from typing import TYPE_CHECKING, Annotated

import typer

from cli.filters import JsonOption, SenderOption, TopicOption, filters
from cli.render import hit_record, print_json, print_table
from cli.state import workspace
from cli.usage import MissingParameter
from toolkit.limits import MAX_LIMIT, MAX_SCAN  # the request models' bounds, no import

if TYPE_CHECKING:
    from toolkit.notebook import HitList, Table
    from toolkit.requests import SearchAllRequest

_SIGNALS = ("semantic", "lexical", "phrase", "short_factor")
_LABELS = {
    "rank": "#",
    "posted_at": "posted (UTC)",
    "messenger_message_id": "id",
    "short_factor": "short",
    "source": "source",
}


def hits_table(hits: "HitList", *, explain: bool) -> "Table":
    """The hits for a terminal: rank, score, time, id, (in a forum) topic, text (and
    signals with explain)."""
    columns = ["rank", "score", "posted_at", "messenger_message_id"]
    columns += ["topic"] if hits.topics else []
    columns += ["text"]
    columns += list(_SIGNALS) if explain else []
    title = f"{len(hits)} hits for {hits.query!r}"
    return hits.table().view(columns, labels=_LABELS, title=title, digits=3)


def all_hits_table(hits: "HitList", *, explain: bool) -> "Table":
    """The hits of a search across sources: as ``hits_table``, with each hit's source."""
    from toolkit.notebook import Table

    rows = hits.table().rows
    for row, hit in zip(rows, hits, strict=True):
        row["source"] = hit.source_ref
    columns = ["rank", "score", "source", "posted_at", "messenger_message_id", "text"]
    columns += list(_SIGNALS) if explain else []
    title = f"{len(hits)} hits for {hits.query!r} in all sources"
    return Table(rows).view(columns, labels=_LABELS, title=title, digits=3)


def search(
    ctx: typer.Context,
    ref: Annotated[
        str,
        typer.Argument(
            help="The source: @handle, a t.me link or t.me/c/<id>; with --all, the query."
        ),
    ],
    query: Annotated[
        str | None, typer.Argument(help="What to look for (not given with --all).")
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_LIMIT, help="Hits to show; default MLENS_DEFAULT_LIMIT (20)."),
    ] = None,
    scan: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_SCAN,
            help="Most recent messages to scan (of each source with --all); default "
            "MLENS_DEFAULT_SCAN_MESSAGES_LIMIT (200).",
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
    all_sources: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Search every stored source (or each --source) as one ranking: "
            "mlens search --all QUERY.",
        ),
    ] = False,
    source: Annotated[
        list[str] | None,
        typer.Option("--source", help="With --all: search this source; repeat for several."),
    ] = None,
    topic: TopicOption = None,
    sender: SenderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the recent messages of a stored source (of one topic, some senders), or
    of every source at once with --all."""
    from toolkit.notebook import HitList
    from toolkit.requests import search_all_request, search_request

    if all_sources or source:
        if query is not None:
            raise typer.BadParameter(
                "with --all, give the query alone: mlens search --all QUERY", param_hint="QUERY"
            )
        search_everywhere(
            search_all_request(
                ref,
                source_refs=source,
                period=(from_, to),
                limit=limit,
                scan_messages_limit=scan,
                explain=explain,
                **filters(topic, sender),
            ),
            as_json=as_json,
        )
        return
    if query is None:
        raise MissingParameter(ctx=ctx, param_hint="'query'", param_type="argument")
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


def search_everywhere(request: "SearchAllRequest", *, as_json: bool) -> None:
    """``mlens search --all``: one ranking over the sources, as a table or JSON."""
    hits = workspace().search_all(request)
    if as_json:
        print_json([hit_record(hit) for hit in hits])
        return
    from toolkit.notebook import HitList

    found = HitList(hits, query=request.query, source_ref="all sources")
    print_table(all_hits_table(found, explain=request.explain))
