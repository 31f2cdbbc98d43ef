"""The ``mlens`` command line."""

from toolkit.cli.app import app, main

__all__ = ["app", "main"]
