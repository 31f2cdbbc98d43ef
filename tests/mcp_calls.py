"""Helpers of the MCP tests, stdio and HTTP (module-named, so that no ``conftest`` shadows it)."""

from __future__ import annotations

from collections.abc import Callable

from mcp_types import CallToolResult

Call = Callable[..., CallToolResult]
"""``call(tool, **arguments)``: a tool's result (the ``call`` fixture)."""


def error_text(result: CallToolResult) -> str:
    """The one line of a tool error (asserting it is one)."""
    assert result.is_error
    assert result.structured_content is None
    (block,) = result.content
    text = getattr(block, "text", "")
    assert "\n" not in text
    assert "Traceback" not in text
    return str(text)


EVERY_TOOL = [
    "list_sources",
    "list_topics",
    "search_messages",
    "search_all",
    "summarize_period",
    "summarize_source",
    "list_schedules",
    "list_alerts",
]
"""The tools a key with every scope sees, in the order the server lists them."""
