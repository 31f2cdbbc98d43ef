"""Imports every command module so that its commands register on the shared app."""

from toolkit.cli import (  # noqa: F401
    core,
    ingest_cmds,
    keys_cmds,
    search_cmds,
    serve_cmds,
    summarize_cmds,
    sync_cmds,
)
