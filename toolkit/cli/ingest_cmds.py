"""``mlens import FILE [--ref @handle]``: load a Telegram Desktop JSON export."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from toolkit.cli.app import app, console, err_console, index, store
from toolkit.errors import ToolkitError
from toolkit.ingest.export import ImportReport, import_export


def report_table(report: ImportReport) -> Table:
    """A small table of what an import changed, one row per source and a total."""
    table = Table(title=f"Imported {report.path.name}")
    table.add_column("source")
    table.add_column("title")
    for column in ("inserted", "updated", "unchanged"):
        table.add_column(column, justify="right")
    for item in report.sources:
        r = item.result
        table.add_row(
            item.source.key,
            item.source.title,
            str(r.inserted),
            str(r.updated),
            str(r.unchanged),
        )
    if len(report.sources) > 1:
        t = report.total
        table.add_row("total", "", str(t.inserted), str(t.updated), str(t.unchanged))
    return table


@app.command("import")
def import_file(
    file: Annotated[
        Path, typer.Argument(help="The export's result.json (single chat or account).")
    ],
    ref: Annotated[
        str | None,
        typer.Option(
            help="Public handle of the exported chat (@handle); single-chat exports only."
        ),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    embed: Annotated[
        bool, typer.Option(help="Embed the new messages now, so searches never wait for it.")
    ] = True,
) -> None:
    """Import a Telegram Desktop JSON export into the store (one transaction, idempotent)."""
    try:
        report = import_export(store(), file, ref=ref, progress=progress)
    except ToolkitError as exc:
        # Reported here as well as in main(): a caller of ``app`` (tests, scripts) gets the
        # same one-line error and exit status as the console script.
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if not report.sources:
        console.print(f"{file.name}: the export holds no chats; nothing imported.")
        return
    console.print(report_table(report))
    if embed:
        for item in report.sources:
            index(item.source.id, progress=progress)
