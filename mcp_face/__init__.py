"""The MCP face: Message Lens's read-only tools for agents, over stdio and HTTP.

One module set serves both transports: ``tools`` (the tools over a ``Workspace``),
``params`` (their parameters), ``answers`` (shared argument types and how they answer
the shapes of ``toolkit.wire``) and ``server`` (``build_server``, the scope guard,
``serve_stdio``). The CLI imports it only when it uses it (``mlens mcp``; and
``cli.asgi``, which hands it to the service for ``/mcp``), so that ``mlens --help``
never loads the ``mcp`` SDK; the service never imports it.
"""

from mcp_face.server import build_server, serve_stdio
from mcp_face.tools import TOOL_SCOPES

__all__ = ["TOOL_SCOPES", "build_server", "serve_stdio"]
