"""The ``mlens`` command line: a face over ``toolkit.workspace.Workspace``."""

from cli.stand_ins import import_typer

import_typer()  # before anything imports Typer: without what no command line needs at start

from cli.app import app, main  # noqa: E402

__all__ = ["app", "main"]
