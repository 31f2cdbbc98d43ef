"""Imports every command module so that its commands register on the shared app."""

from toolkit.cli import core, serve_cmds  # noqa: F401
