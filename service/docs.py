"""The API's documentation pages, served whole by the app itself: they work offline.

FastAPI's own ``/docs`` and ``/redoc`` load Swagger UI and ReDoc from a CDN, a blank
page without internet. Here the pages point at the copies that the ``fastapi-offline``
package installs with the project (Swagger UI, ReDoc, a favicon), served under
``/docs/static``; ``GET /`` leads to ``/docs``. ``create_app`` turns FastAPI's own pages
off (``docs_url=None``, ``redoc_url=None``) and calls ``install_docs``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from service.routing import GuardedRoute

DOCS = "/docs"
REDOC = "/redoc"
STATIC = "/docs/static"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"


def assets_dir() -> Path:
    """The folder of the installed Swagger UI and ReDoc files."""
    return Path(str(files("fastapi_offline") / "static"))


def install_docs(app: FastAPI) -> None:
    """Add ``/``, ``/docs``, ``/redoc`` and their static files to ``app``."""
    app.mount(STATIC, StaticFiles(directory=assets_dir()), name="docs-static")
    # Public pages, but the service's route class all the same (one rule for every route).
    router = APIRouter(route_class=GuardedRoute, include_in_schema=False)

    def static(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{STATIC}/{name}"

    def openapi_url(request: Request) -> str:
        return f"{request.scope.get('root_path', '')}{app.openapi_url}"

    @router.get("/")
    def root(request: Request) -> RedirectResponse:
        return RedirectResponse(f"{request.scope.get('root_path', '')}{DOCS}")

    @router.get(DOCS)
    def swagger_ui(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url(request),
            title=f"{app.title} — API",
            oauth2_redirect_url=OAUTH2_REDIRECT,
            swagger_js_url=static(request, "swagger-ui-bundle.js"),
            swagger_css_url=static(request, "swagger-ui.css"),
            swagger_favicon_url=static(request, "favicon.png"),
        )

    @router.get(OAUTH2_REDIRECT)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @router.get(REDOC)
    def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url(request),
            title=f"{app.title} — API",
            redoc_js_url=static(request, "redoc.standalone.js"),
            redoc_favicon_url=static(request, "favicon.png"),
            with_google_fonts=False,  # fonts from the net would be the one thing not offline
        )

    app.include_router(router)
