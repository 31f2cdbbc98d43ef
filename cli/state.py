"""What every ``mlens`` command shares: the consoles, the settings and one ``Workspace``.

Each is made on first use: a command that answers in JSON makes no Rich console, and the
settings are read once per process from the environment (``MLENS_*``) and ``.env``;
the workspace (store, and the embedder on first use) is opened on first use, so that a
command which fails early (missing credentials, a bad option) opens nothing.
``reset()`` forgets the settings and the workspace; tests call it between runs.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from toolkit.config import Settings
    from toolkit.store import MessageStore
    from toolkit.workspace import Workspace


@cache
def console() -> Console:
    """The console commands print on (stdout), made on first use."""
    from rich.console import Console

    return Console()


@cache
def err_console() -> Console:
    """The console of errors and of what must not mix with a command's output (stderr)."""
    from rich.console import Console

    return Console(stderr=True)


@cache
def settings() -> Settings:
    """The process's Settings, read once from the environment (``MLENS_*``) and ``.env``."""
    from toolkit.config import Settings  # pydantic-settings: not for ``--help``

    return Settings()


@cache
def workspace() -> Workspace:
    """The workspace of the configured data folder, opened once per process."""
    # Imported here: the workspace brings the models and engines, which ``--help`` and a
    # command that fails on its options never need.
    from toolkit.workspace import Workspace

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


def print_error(message: object) -> None:
    """One line on stderr: ``error: <message>``, shown literally (markup and control
    characters from a file, a ref or a title are never obeyed)."""
    from rich.markup import escape

    from toolkit.controls import visible

    text = escape(visible(str(message), one_line=True))
    err_console().print(f"[bold red]error:[/] {text}", highlight=False, soft_wrap=True)
