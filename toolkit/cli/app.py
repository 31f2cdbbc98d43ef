"""The shared Typer application and the plumbing every ``mlens`` command uses.

Command modules (``core``, ``search``, ``summarize`` …) decorate ``app`` and call
``settings()`` / ``store()``; ``toolkit.cli.main`` turns any ``ToolkitError`` into one
clear line on stderr and a non-zero exit.
"""

from __future__ import annotations

import sys
from datetime import datetime
from functools import cache

import typer
from rich.console import Console

from toolkit.config import Settings
from toolkit.embeddings import Embedder, get_embedder, index_source
from toolkit.errors import ToolkitError
from toolkit.models import utc
from toolkit.store import MessageStore, open_store

app = typer.Typer(
    name="mlens",
    help="Message Lens: import, search and summarise chats and channels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


@cache
def settings() -> Settings:
    """The process's Settings, read once from the environment (``MLENS_*``) and ``.env``."""
    return Settings()


@cache
def store() -> MessageStore:
    """The store named by the settings (PostgreSQL or SQLite), opened once per process."""
    return open_store(settings())


@cache
def embedder() -> Embedder:
    """The configured embedder, loaded once per process."""
    return get_embedder(settings())


def index(source_id: int, *, progress: bool = True) -> int:
    """Embed the messages of a source that lack a vector of the configured model."""
    return index_source(
        store(), embedder(), source_id, batch_size=settings().embed_batch_size, progress=progress
    )


def parse_when(value: str | None, name: str) -> datetime | None:
    """Parse an ISO 8601 option value (naive means UTC); a bad value is a one-line error."""
    if value is None:
        return None
    try:
        return utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        raise typer.BadParameter(
            f"{value!r} is not an ISO 8601 date or datetime", param_hint=name
        ) from None


def main() -> None:
    """Entry point of the ``mlens`` console script."""
    # Import the command modules so that they register on ``app``.
    import toolkit.cli.commands  # noqa: F401

    try:
        app()
    except ToolkitError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
