"""Imports every command module so that its commands register on the shared app."""

from toolkit.cli import core, serve_cmds, sync_cmds  # noqa: F401
from toolkit.cli import ingest_cmds  # noqa: F401
from toolkit.cli import keys_cmds  # noqa: F401
from toolkit.cli import summarize_cmds  # noqa: F401
from toolkit.cli import search_cmds  # noqa: F401
