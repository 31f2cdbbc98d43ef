"""The application ``mlens serve`` serves: the /v1 service with the MCP tools at ``/mcp``.

The service does not import the MCP tools (an import-linter contract); this module, above
both, composes them: ``create_app`` is ``service.app.create_app`` handed the tools'
server factory and scopes. ``APP`` names it for uvicorn, whose worker processes each build
their own (``uvicorn cli.asgi:create_app --factory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack

if TYPE_CHECKING:
    from fastapi import FastAPI

    from service.mcp import McpTools
    from toolkit.config import Settings
    from toolkit.workspace import Parts

APP = "cli.asgi:create_app"
"""``create_app``'s import string, for uvicorn (``service.server.run_server``)."""


def mcp_tools() -> McpTools:
    """The MCP tools as ``/mcp`` serves them: their server and the scopes they need."""
    from mcp_face import TOOL_SCOPES, build_server
    from service.mcp import McpTools

    return McpTools(build=build_server, scopes=frozenset(TOOL_SCOPES.values()))


def create_app(settings: Settings | None = None, **parts: Unpack[Parts]) -> FastAPI:
    """The service with the MCP tools mounted at ``/mcp``.

    Args:
        settings: the configuration; ``Settings()`` (environment, ``.env``) when omitted.
        parts: a ready-made ``store``, ``embedder`` or ``searcher`` (``service.app``).

    Returns:
        The FastAPI application.
    """
    # Imported here: the service, the SDK and the tools are for serving only.
    from service.app import create_app as service_app

    return service_app(settings, mcp=mcp_tools(), **parts)
