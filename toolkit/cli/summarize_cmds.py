"""``mlens summarize``: a period summary, or what a source is about (``--source``)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.markup import escape

from toolkit.cli.app import app, console, parse_when, settings, store
from toolkit.embeddings import get_embedder
from toolkit.models import SourceKind, Summary
from toolkit.summarize.pipeline import summarize_period, summarize_source


def _print(summary: Summary) -> None:
    console.print(escape(summary.summary), highlight=False)
    for section in summary.sections:
        console.print(f"\n[bold]{escape(section.title)}[/]")
        console.print(escape(section.body), highlight=False)
    ids = ", ".join(summary.important_messenger_message_ids) or "—"
    console.print(f"\n[dim]important: {ids} · engine: {summary.engine}[/]")


@app.command()
def summarize(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    since: Annotated[
        str | None, typer.Option("--from", help="Period start, ISO 8601 (UTC if naive).")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--to", help="Period end (exclusive), ISO 8601.")
    ] = None,
    language: Annotated[str, typer.Option(help="Output language, ISO 639-1.")] = "en",
    kind: Annotated[
        SourceKind | None, typer.Option(help="Prompt variant; default: the source's kind.")
    ] = None,
    source: Annotated[
        bool, typer.Option("--source", help="Say what the source is about (no period).")
    ] = False,
    messages_limit: Annotated[
        int | None,
        typer.Option(min=1, max=5000, help="With --source: recent messages to read."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Summarise a source's messages of a period, or (--source) describe the source."""
    cfg = settings()
    if source:
        if since or until:
            raise typer.BadParameter("--source takes no --from/--to", param_hint="--source")
        result = summarize_source(store(), get_embedder(cfg), cfg, ref, language, messages_limit)
    else:
        start, end = parse_when(since, "--from"), parse_when(until, "--to")
        if start is None or end is None:
            raise typer.BadParameter("a period summary needs --from and --to (or use --source)")
        result = summarize_period(store(), get_embedder(cfg), cfg, ref, start, end, language, kind)
    if as_json:
        console.print_json(json.dumps(asdict(result), ensure_ascii=False))
    else:
        _print(result)
