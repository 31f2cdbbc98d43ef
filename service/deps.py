"""Annotated dependencies: settings, store, the authenticated key, scopes, shared resources.

Routes read plainly with these aliases, and tests swap any of them through
``app.dependency_overrides``::

    @router.post("/v1/search/messages")
    def search(body: SearchRequest, store: StoreDep, settings: SettingsDep,
               _: Annotated[ApiKeyRecord, Depends(require_scope("search.read"))]) -> ...

Resources that are costly to build (an embedder, an LLM client) are made once per app
with ``app_resource`` and a small getter, e.g.::

    def get_embedder(request: Request, settings: SettingsDep) -> Embedder:
        return app_resource(request, "embedder", lambda: make_embedder(settings))

    EmbedderDep = Annotated[Embedder, Depends(get_embedder)]

``create_app(settings, embedder=...)`` pre-sets such a resource (tests share one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated, TypeVar, cast

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials

from service.auth import authenticate, bearer_scheme
from service.ratelimit import RateLimiter
from toolkit.apikeys import SCOPES, check_scope
from toolkit.config import Settings
from toolkit.ingest.live import MessengerClient, TelethonMessengerClient
from toolkit.models import ApiKeyRecord
from toolkit.store.base import MessageStore

T = TypeVar("T")

# Re-entrant: a factory may itself ask for another resource (the searcher needs the embedder).
_resource_lock = threading.RLock()


def get_settings(request: Request) -> Settings:
    """The app's Settings (given to ``create_app``)."""
    return cast(Settings, request.app.state.settings)


def get_store(request: Request) -> MessageStore:
    """The app's store, opened once by ``create_app``."""
    return cast(MessageStore, request.app.state.store)


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[MessageStore, Depends(get_store)]


def get_principal(
    request: Request,
    store: StoreDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> ApiKeyRecord:
    """The API key the request authenticates with (401/429 problems otherwise)."""
    # FastAPI caches a dependency per set of security scopes, so a route asking for both
    # PrincipalDep and require_scope(...) would run this twice: authenticate (and spend a
    # rate-limit token) once per request.
    known = getattr(request.state, "principal", None)
    if isinstance(known, ApiKeyRecord):
        return known
    limiter = cast(RateLimiter, request.app.state.rate_limiter)
    principal = authenticate(request, store, credentials, limiter)
    request.state.principal = principal
    return principal


PrincipalDep = Annotated[ApiKeyRecord, Depends(get_principal)]


def require_scope(scope: str) -> Callable[[ApiKeyRecord], ApiKeyRecord]:
    """A dependency that admits only keys carrying ``scope`` (403 otherwise).

    Use as ``Annotated[ApiKeyRecord, Depends(require_scope("search.read"))]`` or in a
    route's ``dependencies=[Depends(require_scope(...))]``.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; known: {sorted(SCOPES)}")

    # Security(..., scopes=) only lists the scope in the route's OpenAPI security
    # requirement (OpenAPI 3.1 allows role names there); check_scope enforces it.
    # (A default rather than Annotated: the annotation string could not see ``scope``.)
    def dependency(
        principal: ApiKeyRecord = Security(get_principal, scopes=[scope]),
    ) -> ApiKeyRecord:
        check_scope(principal, scope)
        return principal

    dependency.__name__ = f"require_scope_{scope.replace('.', '_')}"
    return dependency


def app_resource(request: Request, name: str, factory: Callable[[], T]) -> T:
    """The app-wide resource ``name``, built by ``factory`` on first use (thread-safe).

    A value set beforehand on ``app.state`` (``create_app(settings, name=value)``) wins.
    """
    state = request.app.state
    value = getattr(state, name, None)
    if value is None:
        with _resource_lock:
            value = getattr(state, name, None)
            if value is None:
                value = factory()
                setattr(state, name, value)
    return cast(T, value)


def get_messenger_client(settings: SettingsDep) -> MessengerClient:
    """A fresh live client per request (Telethon binds a client to the loop it connects in).

    Raises:
        ConfigError: live credentials are not configured (503).
    """
    return TelethonMessengerClient.from_settings(settings)


MessengerClientDep = Annotated[MessengerClient, Depends(get_messenger_client)]
