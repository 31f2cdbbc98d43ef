"""``mlens mcp``: the MCP tools over stdio, for Claude Desktop and other MCP clients."""

from cli.state import workspace


def mcp() -> None:
    """Serve the read-only MCP tools over stdio (an MCP client starts this command)."""
    # Imported here: the SDK is for this command only, never for ``mlens --help``.
    from mcp_face import serve_stdio

    serve_stdio(workspace())
