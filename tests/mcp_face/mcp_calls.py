"""Helpers of the MCP face tests (module-named, so that no other ``conftest`` shadows it)."""

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
