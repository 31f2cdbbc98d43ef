"""``build_server(workspace)``: the MCP server of the tools, for stdio and for HTTP.

``mlens mcp`` runs it over stdio (``serve_stdio``) with the CLI's workspace: every tool,
errors as the CLI prints them. The service serves it at ``/mcp`` (streamable HTTP;
``cli.asgi`` hands it over) with ``api_key``, which names the key each request
authenticated with: a tool whose scope the key lacks is not listed and is refused, and
a store error does not name server paths.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcp_face.answers import cli_line
from mcp_face.stdio import run_stdio
from mcp_face.tools import READ_ONLY, TOOL_SCOPES, make_tools
from toolkit.apikeys import check_scope
from toolkit.errors import PermissionDenied, StoreError, ToolkitError
from toolkit.models import ApiKeyRecord
from toolkit.workspace import Workspace

NAME = "message-lens"
INSTRUCTIONS = """\
Message Lens: search and summaries of the chats and channels in one message store.
Call list_sources first: its `source_ref` values name the sources for every other tool.
search_messages looks only at a source's most recent messages (its scan window); a
summary covers a period (summarize_period) or what the source is about (summarize_source).
Every tool only reads."""

KeyOf = Callable[[ServerRequestContext[Any, Any]], ApiKeyRecord | None]
"""The API key a request authenticated with (``None``: none, refuse everything)."""


def package_version() -> str:
    """The installed distribution's version (``0+unknown`` when run from a bare tree)."""
    try:
        return version("message-lens")
    except PackageNotFoundError:
        return "0+unknown"


def remote_error_text(exc: ToolkitError) -> str:
    """An error as an HTTP client may read it: a store error names no server path."""
    if isinstance(exc, StoreError):
        return "The message store is unavailable; try again later."
    return cli_line(exc)


def refusal(record: ApiKeyRecord | None, tool: str) -> str | None:
    """``None`` when the key ``record`` may run ``tool``, else why not (the /v1 403's words)."""
    scope = TOOL_SCOPES.get(tool)
    if scope is None:
        return None  # an unknown tool: the server answers that itself
    if record is None:
        return "this request carries no API key"
    try:
        check_scope(record, scope)
    except PermissionDenied as exc:
        return exc.message
    return None


class ScopeGuard:
    """Only the tools the request's key has the scopes for.

    As server middleware it leaves the others out of ``tools/list``; ``refuse`` is the
    tools' own check before a call (a tool error saying which scope the key lacks).
    """

    def __init__(self, key_of: KeyOf) -> None:
        self.key_of = key_of

    def refuse(self, ctx: ServerRequestContext[Any, Any], tool: str) -> str | None:
        """Why the request of ``ctx`` may not run ``tool`` (``None``: it may)."""
        return refusal(self.key_of(ctx), tool)

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Pass the request on; drop the tools out of scope from a ``tools/list`` answer."""
        result = await call_next(ctx)
        # Middleware sees the answer in its wire form: a dict (``tools``: [{name …}]).
        if ctx.method != "tools/list" or not isinstance(result, dict):
            return result
        record = self.key_of(ctx)
        kept = [t for t in result.get("tools", []) if refusal(record, str(t.get("name"))) is None]
        return {**result, "tools": kept}


def build_server(workspace: Workspace, *, api_key: KeyOf | None = None) -> MCPServer[Any]:
    """The MCP server of the read-only tools over ``workspace``.

    Args:
        workspace: the application (the CLI's or the service's one Workspace).
        api_key: over HTTP, the key each request authenticated with: tools are listed
            and run only within its scopes, and store errors are not detailed. ``None``
            (stdio, the user's own machine): every tool, errors as the CLI prints them.

    Returns:
        The server; ``serve_stdio`` runs it, the service mounts its streamable HTTP.
    """
    guard = ScopeGuard(api_key) if api_key is not None else None
    server: MCPServer[Any] = MCPServer(
        NAME,
        title="Message Lens",
        instructions=INSTRUCTIONS,
        version=package_version(),
        log_level="WARNING",
        middleware=[guard] if guard is not None else None,
    )
    if guard is None:
        tools = make_tools(workspace, cli_line)
    else:
        tools = make_tools(workspace, remote_error_text, guard.refuse)
    for spec in tools:
        server.add_tool(
            spec.fn,
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=READ_ONLY,
        )
    return server


def serve_stdio(workspace: Workspace) -> None:
    """Serve the tools over stdin/stdout until the client closes them."""
    run_stdio(build_server(workspace))  # answers requests the SDK's reader would drop
