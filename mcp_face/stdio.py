"""The MCP tools over stdio, with an answer for every request a client sends.

The SDK's stdio reader validates each line with pydantic, which refuses a JSON string
holding a lone surrogate escape (``"\\udcff"``: UTF-8 cannot carry it) and drops the
line with a log entry: the client waits for an answer forever. ``_Lines`` sits between
stdin and that reader: such a request is answered with a JSON-RPC error naming the
escape (``INVALID_PARAMS``) and not passed on; every other line goes through as it is.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

Reply = Callable[[SessionMessage], Awaitable[None]]


def _lone_surrogate(value: Any) -> str | None:
    """The first string in ``value`` (any JSON) that holds a lone surrogate."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value
        return None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found = _lone_surrogate(key) or _lone_surrogate(item)
        if found is not None:
            return found
    return None


def surrogate_error(line: str) -> SessionMessage | None:
    """The error answer to a request line whose strings hold a lone surrogate; ``None``
    for any other line (the SDK reads it), a notification included (nothing answers one)."""
    if "\\u" not in line and "\\U" not in line:  # a lone surrogate is only ever escaped
        return None
    try:
        request = json.loads(line)  # Python's reader keeps lone surrogates; pydantic's not
    except ValueError:
        return None
    found = _lone_surrogate(request)
    if found is None or not isinstance(request, dict):
        return None
    ident = request.get("id")
    if not isinstance(ident, int | str) or isinstance(ident, bool) or _lone_surrogate(ident):
        return None
    shown = ascii(found)[1:-1]
    shown = shown if len(shown) <= 80 else shown[:80] + "…"
    error = types.ErrorData(
        code=types.INVALID_PARAMS,
        message=f"the request holds a lone surrogate ('{shown}'), which UTF-8 cannot carry",
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=ident, error=error))


class _Lines:
    """stdin's lines for the SDK's reader, less the requests answered here."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines
        self.reply: Reply | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def _read(self) -> AsyncIterator[str]:
        async for line in self._lines:
            answer = surrogate_error(line)
            if answer is None:
                yield line
            elif self.reply is not None:
                try:
                    await self.reply(answer)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session ended meanwhile


class _Unowned(TextIOWrapper):
    """stdin's text layer whose close leaves the process's stdin open."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


async def _serve(server: MCPServer[Any]) -> None:
    stdin = anyio.wrap_file(_Unowned(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = _Lines(stdin)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.reply = write_stream.send
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` over stdin/stdout until the client closes them."""
    anyio.run(_serve, server)
