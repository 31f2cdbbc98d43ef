"""What every ``mlens`` command shares: the consoles, the settings and one ``Workspace``.

The settings are read once per process from the environment (``MLENS_*``) and ``.env``;
the workspace (store, and the embedder on first use) is opened on first use, so that a
command which fails early (missing credentials, a bad option) opens nothing.
``reset()`` forgets both; tests call it between runs.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, is_dataclass
from datetime import datetime
from functools import cache
from typing import Any

from rich.console import Console, RenderableType

from toolkit.config import Settings
from toolkit.models import iso_z
from toolkit.store import MessageStore
from toolkit.workspace import Workspace

console = Console()
err_console = Console(stderr=True)
_UNBOUNDED = 1_000_000  # columns: a table printed to a pipe is as wide as its content


def print_table(table: RenderableType) -> None:
    """Print a table on stdout; to a pipe or a file at its natural width.

    In a terminal the table fits the window; anywhere else no cell is cut or wrapped,
    so refs, ids and links arrive whole for a script to read.
    """
    if console.is_terminal:
        console.print(table)
    else:
        Console(file=sys.stdout, width=_UNBOUNDED, color_system=None).print(table)


@cache
def settings() -> Settings:
    """The process's Settings, read once from the environment (``MLENS_*``) and ``.env``."""
    return Settings()


@cache
def workspace() -> Workspace:
    """The workspace of the configured data folder, opened once per process."""
    return Workspace(settings())


def store() -> MessageStore:
    """The store of the process's workspace."""
    return workspace().store


def reset() -> None:
    """Close the workspace, if open, and forget it and the settings."""
    if workspace.cache_info().currsize:
        workspace().close()
    workspace.cache_clear()
    settings.cache_clear()


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso_z(value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


def print_json(value: Any) -> None:
    """Print ``value`` as JSON on stdout (datetimes as ISO 8601 UTC with ``Z``)."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=_jsonable, indent=2) + "\n")


def print_error(message: object) -> None:
    """One line on stderr: ``error: <message>``."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
