"""``create_app(settings)``: the /v1 FastAPI service, a thin adapter over the Workspace.

``mlens serve`` (and ``uvicorn cli.asgi:create_app --factory``) serves it with
``Settings()`` from the environment and the MCP tools at ``/mcp`` (``cli.asgi`` composes
the two; the service does not import the tools); tests and notebooks pass their own
settings (and may pass a ready-made store, embedder or searcher, which the app's
``Workspace`` then uses). Everything a request needs is one typed ``ServiceState``
(``service.state``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from typing import Unpack

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from service.docs import install_docs
from service.keystamps import KeyStamps
from service.mcp import PATH as MCP_PATH
from service.mcp import McpEndpoint, McpTools
from service.middleware import BodyLimitMiddleware, DeadlineMiddleware, UnhandledErrorMiddleware
from service.openapi import install_openapi
from service.problems import http_error_handler, toolkit_error_handler, validation_error_handler
from service.ratelimit import auth_failure_limiter_from_settings, limiter_from_settings
from service.routes import ROUTERS
from service.routes.health import package_version
from service.state import ServiceState
from toolkit.config import Settings
from toolkit.errors import ToolkitError
from toolkit.workspace import Parts, Workspace

SUMMARY_PATHS = (
    "/v1/summaries/",
    "/v1/sources/by-ref/summary",
    "/v1/schedules/",
    "/v1/alerts/",
    MCP_PATH,
)
"""Paths whose requests run under ``MLENS_SUMMARY_TIMEOUT_SECONDS`` (MCP: its summary
tools; a schedule's run writes a digest; an alert's run searches and delivers)."""

DESCRIPTION = """\
Search and summaries over the messages of messaging-platform chats and channels.

Authenticate with `Authorization: Bearer <API key>` (create one with
`mlens keys create --scope ...`). Every error is `application/problem+json` (RFC 9457).
MCP clients reach search and summaries as tools over streamable HTTP at `/mcp`, with
the same keys and scopes (see docs/mcp.md).
"""


def create_app(
    settings: Settings | None = None, *, mcp: McpTools | None = None, **parts: Unpack[Parts]
) -> FastAPI:
    """Build the service over one ``Workspace``.

    Args:
        settings: the configuration; ``Settings()`` (environment, ``.env``) when omitted.
        mcp: the MCP tools to serve at ``/mcp`` behind the API keys (``cli.asgi``
            passes them; the service does not import them); no ``/mcp`` when omitted.
        parts: a ready-made ``store`` (by default the one the settings name, opened
            here once and closed when the app shuts down), ``embedder`` or ``searcher``
            (by default built from the settings on first use).

    Returns:
        The FastAPI application.
    """
    settings = settings if settings is not None else Settings()
    workspace = Workspace(settings, **parts)
    state = ServiceState(
        workspace=workspace,
        rate_limiter=limiter_from_settings(settings, workspace.store),
        auth_failures=auth_failure_limiter_from_settings(settings, workspace.store),
        key_stamps=KeyStamps(workspace.store),
    )

    endpoint = McpEndpoint(state, mcp) if mcp is not None else None

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.service.background_embedding:  # answer now, embed on (a thread; /healthz)
            workspace.embed_in_background()
            workspace.warm_up_in_background()  # and the offline engine's tables (a thread)
        # Every worker runs due schedules: a lease in the store runs each period once.
        runner = workspace.start_delivery() if settings.delivery.runner else None
        async with endpoint.running() if endpoint is not None else nullcontext():
            yield
        if runner is not None:
            runner.stop(timeout=2.0)  # a run cut short is finished by the next worker
        workspace.close()  # stops that thread; closes the store only if it opened it

    app = FastAPI(
        title="Message Lens",
        version=package_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load Swagger UI and ReDoc from a CDN:
        redoc_url=None,  # install_docs serves installed copies instead
    )
    app.state.service = state

    app.add_exception_handler(ToolkitError, toolkit_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    # Added last = outermost: the 500 catch-all sees whatever the others let through; the
    # deadline covers reading the body too.
    app.add_middleware(BodyLimitMiddleware, max_body_bytes=settings.service.max_body_bytes)
    app.add_middleware(
        DeadlineMiddleware,
        seconds=settings.service.request_timeout_seconds,
        long_seconds=settings.service.summary_timeout_seconds,
        long_paths=SUMMARY_PATHS,
    )
    app.add_middleware(UnhandledErrorMiddleware)
    if settings.service.trusted_proxies.strip():
        # Outermost: the client address every limit keys on is the one a trusted proxy
        # forwarded; from any other peer X-Forwarded-* is ignored.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.service.trusted_proxies)

    for router in ROUTERS:
        app.include_router(router)
    if endpoint is not None:
        # The MCP tools over streamable HTTP (API keys as /v1; not in the OpenAPI document).
        app.router.routes.append(Route(MCP_PATH, endpoint, include_in_schema=False))
    install_openapi(app)
    install_docs(app)
    return app
