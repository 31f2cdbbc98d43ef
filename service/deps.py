"""Every Annotated dependency of the routes: state, settings, the Workspace, key, scopes.

Routes read plainly with these aliases, and tests swap any of them through
``app.dependency_overrides``::

    @router.post("/v1/search/messages")
    def search(body: SearchRequest, _: SearchScope, ws: WorkspaceDep) -> ...:
        hits = ws.search(body)

The application is one ``toolkit.workspace.Workspace`` per app (``create_app`` builds
it; it builds the store, the embedder and the searcher once): routes call its verbs and
never reach for a store, an embedder or a searcher of their own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials
from starlette.concurrency import run_in_threadpool

from service.auth import authenticate, bearer_scheme
from service.state import ServiceState, state_of
from toolkit.apikeys import SCOPES, check_scope
from toolkit.config import Settings
from toolkit.models import ApiKeyRecord
from toolkit.workspace import MessengerClient, Workspace, messenger_client

# The dependencies are ``async def``: each is a lookup that never blocks, and FastAPI
# runs a plain ``def`` dependency on a worker thread, a round trip through the thread
# pool (~0.2-0.5 ms on 2 cores) for each of them on every request.


async def get_state(request: Request) -> ServiceState:
    """The app's typed state (built by ``create_app``)."""
    return state_of(request.app)


StateDep = Annotated[ServiceState, Depends(get_state)]


async def get_settings(state: StateDep) -> Settings:
    """The app's Settings (given to ``create_app``)."""
    return state.settings


async def get_workspace(state: StateDep) -> Workspace:
    """The app's Workspace: its store, embedder, searcher and engines, built once."""
    return state.workspace


SettingsDep = Annotated[Settings, Depends(get_settings)]
WorkspaceDep = Annotated[Workspace, Depends(get_workspace)]


async def get_principal(
    request: Request,
    state: StateDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> ApiKeyRecord:
    """The API key the request authenticates with (401/429 problems otherwise)."""
    # ``GuardedRoute`` authenticates before the body is parsed and leaves the key here;
    # FastAPI may also run this dependency twice (once per set of security scopes).
    known = getattr(request.state, "principal", None)
    if isinstance(known, ApiKeyRecord):
        return known
    # Reads the store (the key, perhaps a shared rate-limit bucket): on a worker thread.
    principal = await run_in_threadpool(authenticate, request, state, credentials)
    request.state.principal = principal
    return principal


PrincipalDep = Annotated[ApiKeyRecord, Depends(get_principal)]


def require_scope(scope: str) -> Callable[[ApiKeyRecord], Awaitable[ApiKeyRecord]]:
    """A dependency that admits only keys carrying ``scope`` (403 otherwise).

    Use as ``Annotated[ApiKeyRecord, Depends(require_scope("search.read"))]`` or in a
    route's ``dependencies=[Depends(require_scope(...))]``.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; known: {sorted(SCOPES)}")

    # Security(..., scopes=) only lists the scope in the route's OpenAPI security
    # requirement (OpenAPI 3.1 allows role names there); check_scope enforces it.
    # (A default rather than Annotated: the annotation string could not see ``scope``.)
    async def dependency(
        principal: ApiKeyRecord = Security(get_principal, scopes=[scope]),
    ) -> ApiKeyRecord:
        check_scope(principal, scope)
        return principal

    dependency.__name__ = f"require_scope_{scope.replace('.', '_')}"
    return dependency


# One alias per scope, so that a route states what it needs in one word.
SearchScope = Annotated[ApiKeyRecord, Depends(require_scope("search.read"))]
SourcesReadScope = Annotated[ApiKeyRecord, Depends(require_scope("sources.read"))]
SourcesWriteScope = Annotated[ApiKeyRecord, Depends(require_scope("sources.write"))]
SummaryScope = Annotated[ApiKeyRecord, Depends(require_scope("summary.run"))]
ScheduleReadScope = Annotated[ApiKeyRecord, Depends(require_scope("schedule.read"))]
ScheduleWriteScope = Annotated[ApiKeyRecord, Depends(require_scope("schedule.write"))]

MessengerClientFactory = Callable[[], MessengerClient]


async def get_messenger_client_factory(settings: SettingsDep) -> MessengerClientFactory:
    """Makes a fresh live client (Telethon binds a client to the loop it connects in).

    A factory rather than the client, so that the route validates its body before
    finding out whether live credentials are configured.
    """
    return lambda: messenger_client(settings)


MessengerClientFactoryDep = Annotated[MessengerClientFactory, Depends(get_messenger_client_factory)]
