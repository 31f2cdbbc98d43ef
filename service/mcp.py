"""``/mcp``: the MCP tools over streamable HTTP, behind the same API keys as /v1.

``McpEndpoint`` is an ASGI endpoint mounted as a plain route (so not in the OpenAPI
document). Each request is authenticated like a /v1 request (``service.auth``: bearer
key, its rate limit, the failed-attempt limit) before the SDK reads it: no, a malformed
or an unknown key is a 401 problem, a key with none of the tools' scopes a 403 problem.
The SDK then serves it statelessly with JSON answers: any worker process can answer any
request, and the app's deadline covers the whole call. So only POST is served; GET and
DELETE are 405 problems (no stream to open, no session to end). The tools a key may see
and call are those of its scopes (the tools' own scope guard: a tool's scope is its /v1
twin's). The app's middleware (body limit, deadline, last-resort 500) wraps it as it
wraps /v1; ``running()`` belongs in the app's lifespan (it starts the SDK's task group).

The service does not import the tools (``mcp_face``): whoever composes the app (``mlens
serve``: ``cli.asgi``) hands ``create_app`` an ``McpTools``, the server factory and the
scopes, and ``/mcp`` is served only then.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from service.auth import authenticate, bearer_scheme
from service.problems import problem_response, toolkit_error_handler
from service.state import ServiceState
from toolkit.errors import PermissionDenied, ToolkitError
from toolkit.models import ApiKeyRecord
from toolkit.workspace import Workspace

PATH = "/mcp"
KEY = "mlens.api_key"
"""Where the authenticated key travels in the ASGI scope, to the tools' scope guard."""

KeyOf = Callable[[ServerRequestContext[Any, Any]], ApiKeyRecord | None]
"""The API key a request authenticated with (``key_of``), as the tools' server asks it."""


class ServerFactory(Protocol):
    """Builds the MCP server of the tools over a workspace (``mcp_face.build_server``)."""

    def __call__(self, workspace: Workspace, *, api_key: KeyOf) -> MCPServer[Any]:
        """The server; ``api_key`` names the key of each request (its scopes rule)."""
        ...


@dataclass(frozen=True)
class McpTools:
    """What ``/mcp`` serves: the tools' server factory and the scopes of the tools.

    Attributes:
        build: the server over the app's workspace, guarded by each request's key.
        scopes: every scope a tool needs; a key with none of them is refused (403).
    """

    build: ServerFactory
    scopes: frozenset[str]


def key_of(ctx: ServerRequestContext[Any, Any]) -> ApiKeyRecord | None:
    """The key the HTTP request carrying ``ctx``'s message authenticated with."""
    scope = getattr(ctx.request, "scope", None)
    record = scope.get(KEY) if isinstance(scope, dict) else None
    return record if isinstance(record, ApiKeyRecord) else None


class McpEndpoint:
    """The streamable-HTTP MCP endpoint of one app (``__call__`` is its ASGI app)."""

    def __init__(self, state: ServiceState, tools: McpTools) -> None:
        self.state = state
        self.scopes = tools.scopes
        self.server = tools.build(state.workspace, api_key=key_of)
        self.manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve while the app runs (a fresh SDK session manager per lifespan)."""
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            max_request_body_size=self.state.settings.service.max_body_bytes,
            # Requests need an API key, so a rebound browser page gets nothing; the
            # service's own host names are the operator's business.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = self.server.session_manager
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Authenticate, then hand the request to the SDK (POST only)."""
        request = Request(scope, receive)
        if request.method != "POST":
            # Stateless: no stream to open with GET (the spec's answer is 405; the SDK
            # would hold the request open), no session to end with DELETE.
            detail = f"{request.method} is not allowed here: send MCP messages with POST"
            response = problem_response(request, 405, detail=detail, headers={"Allow": "POST"})
            await response(scope, receive, send)
            return
        try:
            record = await self._authenticate(request)
        except ToolkitError as exc:
            response = await toolkit_error_handler(request, exc)
            await response(scope, receive, send)
            return
        manager = self.manager
        if manager is None:  # the app was called without running its lifespan
            detail = "the MCP endpoint is not running"
            await problem_response(request, 503, detail=detail)(scope, receive, send)
            return
        scope[KEY] = record
        # The SDK binds a session to its creator through ``user`` (no sessions here,
        # stateless; kept so that a stateful setup would stay safe).
        scope["user"] = AuthenticatedUser(
            AccessToken(token=record.prefix, client_id=f"key-{record.id}", scopes=[*record.scopes])
        )
        await manager.handle_request(scope, receive, send)

    async def _authenticate(self, request: Request) -> ApiKeyRecord:
        credentials = await bearer_scheme(request)
        record = await run_in_threadpool(authenticate, request, self.state, credentials)
        if not record.scopes & self.scopes:
            wanted = " ".join(sorted(self.scopes))
            raise PermissionDenied(
                f"this API key has none of the scopes of the MCP tools ({wanted})", scope=wanted
            )
        return record
