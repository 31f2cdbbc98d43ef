"""``mlens backup PATH`` and ``mlens restore PATH``: a live store's consistent copy, and
its way back (``Assembly.backup``/``restore``; ``docs/backup.md``)."""

from pathlib import Path
from typing import Annotated

import typer

from cli.render import literal
from cli.state import console, workspace


def backup(
    path: Annotated[Path, typer.Argument(help="The backup file to write (an SQLite store).")],
    force: Annotated[bool, typer.Option("--force", help="Replace an existing PATH.")] = False,
) -> None:
    """Copy the configured store, as it is at one moment, into the file PATH, while
    searches and imports go on. The file appears whole or not at all."""
    report = workspace().assembly.backup(path, overwrite=force)
    console().print(
        f"Backed up {report.sources} sources, {report.messages} messages "
        f"({report.size / 1_048_576:.1f} MiB) to {literal(report.path, one_line=True)}.",
        highlight=False,
        soft_wrap=True,
    )


def restore(
    path: Annotated[Path, typer.Argument(help="A backup file `mlens backup` wrote.")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace what a store that is not empty holds.")
    ] = False,
) -> None:
    """Copy the backup PATH into the configured store, all of it or nothing. A store
    that holds anything is left alone unless --force."""
    report = workspace().assembly.restore(path, replace=force)
    m = report.messages
    console().print(
        f"Restored {report.sources} sources, {m.inserted + m.updated + m.unchanged} messages, "
        f"{report.vectors} vectors, {report.keys_added} API keys and "
        f"{report.cache_written} cached summaries from {literal(path, one_line=True)}.",
        highlight=False,
        soft_wrap=True,
    )
