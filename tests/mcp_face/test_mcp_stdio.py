"""``mlens mcp``: an MCP client spawns it over stdio and uses every tool; cheap imports."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_calls import EVERY_TOOL, error_text
from typer.testing import CliRunner

from cli import state
from cli.app import app
from toolkit import Workspace

ROOT = Path(__file__).resolve().parents[2]


def _spawned(data_dir: Path, cwd: Path) -> StdioServerParameters:
    """``python -m cli mcp`` on ``data_dir``, as an MCP client's configuration starts it."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cli", "mcp"],
        env={"MLENS_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)},
        cwd=cwd,
    )


@pytest.mark.slow
def test_a_client_spawns_mlens_mcp_and_calls_every_tool(
    workspace: Workspace, trip_chat: str, data_dir: Path, tmp_path: Path
) -> None:
    (stats,) = workspace.sources()
    printed_ref = stats.source.key  # as `mlens sources` prints it

    async def session() -> dict[str, Any]:
        async with Client(_spawned(data_dir, tmp_path)) as client:
            out: dict[str, Any] = {"tools": (await client.list_tools()).tools}
            calls = {
                "list_sources": ("list_sources", {}),
                "list_topics": ("list_topics", {"source_ref": trip_chat}),
                "search_messages": (
                    "search_messages",
                    {"source_ref": printed_ref, "query": "hotel breakfast", "limit": 3},
                ),
                "summarize_period": (
                    "summarize_period",
                    {"source_ref": trip_chat, "started_at": "2026-03-02", "ended_at": "2026-03-03"},
                ),
                "summarize_source": ("summarize_source", {"source_ref": trip_chat}),
                "unknown": ("search_messages", {"source_ref": "@no_such_chat", "query": "x"}),
                "bad_period": (
                    "summarize_period",
                    {"source_ref": trip_chat, "started_at": "2026-03-05", "ended_at": "2026-03-02"},
                ),
            }
            for key, (tool, arguments) in calls.items():
                out[key] = await client.call_tool(tool, arguments)
            return out

    got = asyncio.run(session())
    assert [t.name for t in got["tools"]] == EVERY_TOOL
    (source,) = got["list_sources"].structured_content["items"]
    assert source["source_ref"] == printed_ref
    assert source["message_count"] == stats.message_count
    assert got["list_topics"].structured_content["items"] == []
    hits = got["search_messages"].structured_content["items"]
    assert 0 < len(hits) <= 3
    assert "hotel" in hits[0]["text"].lower()
    for key in ("summarize_period", "summarize_source"):
        assert got[key].structured_content["summary"]
    # The same line as the CLI prints for the same mistake, after its ``error:``.
    for key, argv in {
        "unknown": ["search", "@no_such_chat", "x"],
        "bad_period": ["summarize", trip_chat, "--from", "2026-03-05", "--to", "2026-03-02"],
    }.items():
        state.reset()
        printed = CliRunner().invoke(app, argv)
        state.reset()
        assert printed.exit_code == 1
        assert printed.stderr.strip() == f"error: {error_text(got[key])}"


def test_mlens_help_does_not_import_the_mcp_sdk() -> None:
    sdk = ("mcp", "mcp_face", "mcp_types")
    probe = (
        "import cli.app, json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {sdk!r})))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
