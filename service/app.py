"""``create_app(settings)``: the /v1 FastAPI service, a thin adapter over the toolkit.

``uvicorn service.app:create_app --factory`` serves it with ``Settings()`` from the
environment; tests and notebooks pass their own settings (and may pass a store or
ready-made resources such as an embedder, see ``service.deps.app_resource``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.middleware import BodyLimitMiddleware, UnhandledErrorMiddleware
from service.openapi import install_openapi
from service.problems import http_error_handler, toolkit_error_handler, validation_error_handler
from service.ratelimit import limiter_from_settings
from service.routes import ROUTERS
from service.routes.health import package_version
from toolkit.config import Settings
from toolkit.errors import ToolkitError
from toolkit.store import open_store
from toolkit.store.base import MessageStore

DESCRIPTION = """\
Search and summaries over the messages of messaging-platform chats and channels.

Authenticate with `Authorization: Bearer <API key>` (create one with
`mlens keys create --scope ...`). Every error is `application/problem+json` (RFC 9457).
"""


def create_app(
    settings: Settings | None = None,
    *,
    store: MessageStore | None = None,
    **resources: Any,
) -> FastAPI:
    """Build the service.

    Args:
        settings: the configuration; ``Settings()`` (environment, ``.env``) when omitted.
        store: a store to serve; by default the one the settings name (``open_store``),
            opened here once and closed when the app shuts down.
        **resources: values preset on ``app.state`` (e.g. ``embedder=...``), which
            ``service.deps.app_resource`` returns instead of building its own.

    Returns:
        The FastAPI application.
    """
    settings = settings if settings is not None else Settings()
    owns_store = store is None
    app_store: MessageStore = store if store is not None else open_store(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if owns_store:
            app_store.close()

    app = FastAPI(
        title="Message Lens",
        version=package_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = app_store
    app.state.rate_limiter = limiter_from_settings(settings, app_store)
    for name, value in resources.items():
        setattr(app.state, name, value)

    app.add_exception_handler(ToolkitError, toolkit_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    # Added last = outermost: the 500 catch-all sees whatever the body limit lets through.
    app.add_middleware(BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(UnhandledErrorMiddleware)

    for router in ROUTERS:
        app.include_router(router)
    install_openapi(app)
    return app
