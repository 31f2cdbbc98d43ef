"""Fixtures of the MCP face tests: a client of the tools over the trip chat, in process.

``call(name, **arguments)`` runs one tool through the SDK's own ``Client`` connected to
``build_server(workspace)`` in process (the stdio and HTTP tests use real transports).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from mcp_calls import Call
from mcp_types import CallToolResult, Tool

from mcp_face import build_server
from toolkit import Workspace


async def _session(workspace: Workspace, work: Callable[[Client], Any]) -> Any:
    async with Client(build_server(workspace)) as client:
        return await work(client)


@pytest.fixture
def call(workspace: Workspace, trip_chat: str) -> Call:
    """``call(tool, **arguments)``: the tool's result over the trip chat's workspace."""

    def run(name: str, **arguments: Any) -> CallToolResult:
        result: CallToolResult = asyncio.run(
            _session(workspace, lambda client: client.call_tool(name, arguments))
        )
        return result

    return run


@pytest.fixture
def listed(workspace: Workspace) -> list[Tool]:
    """The tools the server lists."""
    result = asyncio.run(_session(workspace, lambda client: client.list_tools()))
    return list(result.tools)
