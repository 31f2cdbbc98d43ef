"""The ``mlens`` Typer application: every command is registered here, in one place.

Each command module defines plain functions; this module adds them to ``app`` (and the
``keys`` group) through ``_register``, which also turns a ``ToolkitError`` into one
clear line on stderr and exit status 1, for the console script and for callers of
``app`` (tests, scripts) alike; usage errors are two lines (``cli.usage``).

``mlens --help`` answers at once (``tests/cli/test_cli_lazy_imports.py``): a command
module imports at its top only what its options need, and the rest (Rich, the
workspace, the toolkit's features) inside its commands; the help is drawn by Typer,
loaded lean (``cli.lean_help``). The command modules are written without
``from __future__ import annotations``: Typer reads every command's annotations when it
builds the command line, and as strings it would compile each one four times per start.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import typer

from cli import backup, copy_store, ingest, keys, mcp_stdio, search, serve, sources, summarize, sync
from cli.lean_help import LeanHelpCommand, LeanHelpGroup
from cli.state import err_console, print_error
from cli.usage import LineErrorsGroup
from toolkit.errors import ToolkitError

app = typer.Typer(
    name="mlens",
    cls=LineErrorsGroup,  # usage errors in two lines, not a box
    help="Message Lens: import, search and summarise chats and channels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
keys_app = typer.Typer(
    cls=LeanHelpGroup,
    help="Create, list and revoke API keys of the HTTP service.",
    no_args_is_help=True,
)


def _register(group: typer.Typer, command: Callable[..., None], name: str) -> None:
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except ToolkitError as exc:
            print_error(exc)
            raise typer.Exit(1) from None

    group.command(name, cls=LeanHelpCommand)(run)


COMMANDS: list[tuple[str, Callable[..., None]]] = [
    ("sources", sources.sources),
    ("messages", sources.messages),
    ("timezone", sources.timezone),
    ("import", ingest.import_file),
    ("demo", ingest.demo),
    ("index", ingest.index),
    ("sync", sync.sync),
    ("search", search.search),
    ("summarize", summarize.summarize),
    ("serve", serve.serve),
    ("mcp", mcp_stdio.mcp),
    ("copy-store", copy_store.copy_store),
    ("backup", backup.backup),
    ("restore", backup.restore),
]
"""Every top-level command, by name, in the order ``mlens --help`` lists them."""
KEY_COMMANDS: list[tuple[str, Callable[..., None]]] = [
    ("create", keys.create),
    ("list", keys.list_),
    ("revoke", keys.revoke),
]
"""The commands of ``mlens keys``."""

for name, command in COMMANDS:
    _register(app, command, name)
for name, command in KEY_COMMANDS:
    _register(keys_app, command, name)
app.add_typer(keys_app, name="keys")


def main() -> None:
    """Entry point of the ``mlens`` console script."""
    try:
        app()
    except ToolkitError as exc:
        print_error(exc)
        sys.exit(1)
    except KeyboardInterrupt:
        err_console().print("interrupted")
        sys.exit(130)
