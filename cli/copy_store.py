"""``mlens copy-store --to URL``: move a store between SQLite and PostgreSQL (idempotent),
through the workspace's ``copy_stores`` (which opens both as the assembly opens its own)."""

from typing import Annotated

import typer

from cli.render import literal
from cli.state import console, settings


def copy_store(
    to: Annotated[
        str, typer.Option("--to", help="Target: a postgresql:// URL or an SQLite file path.")
    ],
    source: Annotated[
        str | None,
        typer.Option(
            "--from", help="Store to read (postgresql:// URL or SQLite path); default: configured."
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Messages per target transaction.")] = 2000,
) -> None:
    """Copy sources, messages, topics, vectors, watermarks, API keys, cached summaries,
    schedules and alerts into another store.

    Running it again changes nothing that is already there; copy back the same way.
    """
    from toolkit.config import redact_url
    from toolkit.workspace import copy_stores

    cfg = settings()
    report = copy_stores(
        cfg,
        to,
        origin=source,
        batch_size=batch_size,
        progress=lambda key, n: console().print(f"  {literal(key)}: {n} messages", highlight=False),
    )
    m = report.messages
    console().print(
        f"Copied {report.sources} sources from {literal(redact_url(source or cfg.store_label))} "
        f"to {literal(redact_url(to))}: "
        f"{m.inserted} messages new, {m.updated} updated, {m.unchanged} unchanged; "
        f"{report.vectors} vectors; {report.keys_added} API keys added, "
        f"{report.keys_revoked} revoked; {report.cache_written} cached summaries written; "
        f"{report.schedules} schedules and {report.alerts} alerts added.",
        highlight=False,
        soft_wrap=True,
    )
