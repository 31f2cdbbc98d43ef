"""The ``mlens`` command line: a face over ``toolkit.workspace.Workspace``."""

from cli.app import app, main

__all__ = ["app", "main"]
