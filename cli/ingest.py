"""``mlens import FILE [--ref @handle]`` and ``mlens demo``: load exports into the store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from cli.state import console, print_table, workspace
from toolkit.notebook import Table as Rows

_COUNTS = ("inserted", "updated", "unchanged")


def report_table(imported: Rows, title: str) -> Table:
    """A small table of what an import changed, one row per source and a total."""
    table = Table(title=title)
    table.add_column("source")
    table.add_column("title")
    for column in _COUNTS:
        table.add_column(column, justify="right")
    for row in imported:
        table.add_row(row["ref"], row["title"], *(str(row[c]) for c in _COUNTS))
    if len(imported) > 1:
        table.add_row("total", "", *(str(sum(imported[c])) for c in _COUNTS))
    return table


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
        bool,
        typer.Option(
            help="Embed now: each chat's newest messages first (searchable in seconds), "
            "then the rest; `mlens index` resumes an interrupted run."
        ),
    ] = True,
    timezone: Annotated[
        str | None,
        typer.Option(
            help="IANA time zone (Europe/Moscow) of dates without date_unixtime "
            "(exports of older Telegram Desktop versions)."
        ),
    ] = None,
) -> None:
    """Import a Telegram Desktop JSON export into the store (one transaction, idempotent)."""
    imported = workspace().import_export(
        file, ref=ref, embed=embed, progress=progress, timezone=timezone
    )
    if not imported:
        console.print(f"{file.name}: the export holds no chats; nothing imported.")
        return
    print_table(report_table(imported, f"Imported {file.name}"))
    console.print(imported.title or "", highlight=False, soft_wrap=True)


def index(
    ref: Annotated[
        str | None, typer.Argument(help="The source to embed; by default every source.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Embed the messages that have no vector yet (resumes an interrupted embedding)."""
    table = workspace().index(ref, progress=progress)
    for row in table:
        console.print(f"{row['ref']} ({row['title']}): embedded {row['embedded']} messages")


def demo() -> None:
    """Load the demo sources (an English chat and a Russian channel) into the store."""
    imported = workspace().load_demo(only_if_empty=False, progress=True)
    print_table(report_table(imported, "Demo sources"))
