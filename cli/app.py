"""The ``mlens`` Typer application: every command is registered here, in one place.

``COMMANDS`` and ``KEY_COMMANDS`` name each command's function (``cli.<module>``) and
the first paragraph of its help; the groups build a command from its function when it
is used (``cli.lazy``), turning a ``ToolkitError`` into one clear line on stderr and exit
status 1, for the console script and for callers of ``app`` (tests, scripts) alike;
usage errors are two lines (``cli.usage``).

``mlens --help`` answers at once (``tests/cli/test_cli_lazy_imports.py``): it lists the
commands from the table, importing none of their modules; a command module imports at
its top only what its options need, and the rest (Rich, the workspace, the toolkit's
features) inside its commands; the help is drawn by Typer, loaded lean
(``cli.lean_help``). The command modules are written without
``from __future__ import annotations``: Typer reads every command's annotations when it
builds a command, and as strings it would compile each one four times.
"""

from __future__ import annotations

import sys

import typer

from cli.lazy import Lazy, LazyGroup
from cli.state import err_console, print_error
from cli.usage import LineErrorsGroup

COMMANDS: list[tuple[str, Lazy]] = [
    (
        "sources",
        Lazy(
            "cli.sources",
            "sources",
            "List the sources in the store with message counts, time span and forum topics.",
        ),
    ),
    (
        "messages",
        Lazy(
            "cli.sources",
            "messages",
            "Print the most recent messages of a source (of one topic, some senders), "
            "oldest first.",
        ),
    ),
    (
        "timezone",
        Lazy(
            "cli.sources",
            "timezone",
            "Show or set a source's own time zone, in which summaries read its times.",
        ),
    ),
    (
        "import",
        Lazy(
            "cli.ingest",
            "import_file",
            "Import a Telegram Desktop export, JSON or HTML or a .zip (one transaction, "
            "idempotent).",
        ),
    ),
    (
        "demo",
        Lazy(
            "cli.ingest",
            "demo",
            "Load the demo sources (an English chat and a Russian channel) into the store.",
        ),
    ),
    (
        "index",
        Lazy(
            "cli.ingest",
            "index",
            "Embed the messages that have no vector yet (resumes an interrupted embedding).",
        ),
    ),
    (
        "sync",
        Lazy(
            "cli.sync",
            "sync",
            "Fetch new messages of a source, oldest first, from where the last sync stopped.",
        ),
    ),
    (
        "search",
        Lazy(
            "cli.search",
            "search",
            "Search the recent messages of a stored source (of one topic, some senders), or\n"
            "of every source at once with --all.",
        ),
    ),
    (
        "summarize",
        Lazy(
            "cli.summarize",
            "summarize",
            "Summarise a source's messages of a period, or (--source) describe the source.",
        ),
    ),
    (
        "serve",
        Lazy(
            "cli.serve",
            "serve",
            "Serve the /v1 HTTP API (uvicorn; --workers N processes on one store).",
        ),
    ),
    (
        "config",
        Lazy(
            "cli.config",
            "config",
            "Show where the settings come from: the files read and the MLENS_ variables set.",
        ),
    ),
    (
        "mcp",
        Lazy(
            "cli.mcp_stdio",
            "mcp",
            "Serve the read-only MCP tools over stdio (an MCP client starts this command).",
        ),
    ),
    (
        "scheduler",
        Lazy(
            "cli.schedule",
            "scheduler",
            "Run due digest schedules (and check alerts) until stopped.",
        ),
    ),
    (
        "copy-store",
        Lazy(
            "cli.copy_store",
            "copy_store",
            "Copy sources, messages, topics, vectors, watermarks, API keys, cached summaries,\n"
            "schedules and alerts into another store.",
        ),
    ),
    (
        "backup",
        Lazy(
            "cli.backup",
            "backup",
            "Copy the configured store, as it is at one moment, into the file PATH, while\n"
            "searches and imports go on. The file appears whole or not at all.",
        ),
    ),
    (
        "restore",
        Lazy(
            "cli.backup",
            "restore",
            "Copy the backup PATH into the configured store, all of it or nothing. A store\n"
            "that holds anything is left alone unless --force.",
        ),
    ),
]
"""Every top-level command, by name, in the order ``mlens --help`` lists them; each
summary is the first paragraph of its function's docstring, as the listing shows it."""
KEY_COMMANDS: list[tuple[str, Lazy]] = [
    (
        "create",
        Lazy("cli.keys", "create", "Create a key with the given scopes and print it once."),
    ),
    (
        "list",
        Lazy(
            "cli.keys",
            "list_",
            "List every key (revoked ones too); secrets are never stored, so never shown.",
        ),
    ),
    (
        "revoke",
        Lazy("cli.keys", "revoke", "Revoke a key: requests with it are refused from now on."),
    ),
]
"""The commands of ``mlens keys``."""
SCHEDULE_COMMANDS: list[tuple[str, Lazy]] = [
    (
        "add",
        Lazy(
            "cli.schedule",
            "add",
            "Schedule a source's digest, daily (or --weekly DAY) at --at in its own zone.",
        ),
    ),
    (
        "list",
        Lazy(
            "cli.schedule",
            "list_",
            "List the schedules, their last run and each destination's state (secrets hidden).",
        ),
    ),
    ("remove", Lazy("cli.schedule", "remove", "Remove a schedule and its runs.")),
    (
        "run-now",
        Lazy(
            "cli.schedule",
            "run_now",
            "Deliver a schedule's digest now, of what came since its last one.",
        ),
    ),
    (
        "resend",
        Lazy(
            "cli.schedule",
            "resend",
            "Send again each destination whose outcome is uncertain (its worker stopped mid-send).",
        ),
    ),
]
"""The commands of ``mlens schedule``."""
ALERT_COMMANDS: list[tuple[str, Lazy]] = [
    (
        "add",
        Lazy(
            "cli.alert",
            "add",
            "Post each new message matching QUERY with a score of at least --min-score.",
        ),
    ),
    (
        "list",
        Lazy(
            "cli.alert",
            "list_",
            "List the alerts, their latest post and each destination's state (secrets hidden).",
        ),
    ),
    ("remove", Lazy("cli.alert", "remove", "Remove an alert and its posts.")),
    (
        "run-now",
        Lazy("cli.alert", "run_now", "Post an alert's new matches now (within its cap per hour)."),
    ),
    (
        "resend",
        Lazy(
            "cli.alert",
            "resend",
            "Post again each destination whose outcome is uncertain (its worker stopped mid-send).",
        ),
    ),
]
"""The commands of ``mlens alert``."""


class MlensGroup(LineErrorsGroup):
    """The ``mlens`` group: ``COMMANDS``, then the ``keys``, ``schedule`` and ``alert``
    groups."""

    table = COMMANDS


class KeysGroup(LazyGroup):
    """The ``mlens keys`` group: ``KEY_COMMANDS``."""

    table = KEY_COMMANDS


class ScheduleGroup(LazyGroup):
    """The ``mlens schedule`` group: ``SCHEDULE_COMMANDS``."""

    table = SCHEDULE_COMMANDS


class AlertGroup(LazyGroup):
    """The ``mlens alert`` group: ``ALERT_COMMANDS``."""

    table = ALERT_COMMANDS


app = typer.Typer(
    name="mlens",
    cls=MlensGroup,  # usage errors in two lines, not a box
    help="Message Lens: import, search and summarise chats and channels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
keys_app = typer.Typer(
    cls=KeysGroup,
    help="Create, list and revoke API keys of the HTTP service.",
    no_args_is_help=True,
)
app.add_typer(keys_app, name="keys")
schedule_app = typer.Typer(
    cls=ScheduleGroup,
    help="Deliver digests on a schedule: to Telegram, a webhook, e-mail or an Atom feed.",
    no_args_is_help=True,
)
app.add_typer(schedule_app, name="schedule")
alert_app = typer.Typer(
    cls=AlertGroup,
    help="Post new messages that match a saved search: to Telegram, a webhook or e-mail.",
    no_args_is_help=True,
)
app.add_typer(alert_app, name="alert")


def main() -> None:
    """Entry point of the ``mlens`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        err_console().print("interrupted")
        sys.exit(130)
    except Exception as exc:
        from toolkit.errors import ToolkitError  # not imported for ``--help``

        if not isinstance(exc, ToolkitError):
            raise
        print_error(exc)
        sys.exit(1)
