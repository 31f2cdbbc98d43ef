"""``GET /healthz``: liveness, version and the store's size, in bounded time; no key needed."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter
from pydantic import BaseModel, Field

from service.deps import SettingsDep, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute

router = APIRouter(tags=["health"], route_class=GuardedRoute)


class Health(BaseModel):
    """Liveness and the store's size."""

    status: str = "ok"
    version: str
    messages: int = Field(description="Messages stored in every source.")
    sources: int = Field(description="Sources stored.")


def package_version() -> str:
    """The installed distribution's version (``0+unknown`` when run from a bare tree)."""
    try:
        return version("message-lens")
    except PackageNotFoundError:
        return "0+unknown"


@router.get("/healthz", response_model=Health, summary="Liveness", responses=problem_responses(503))
def healthz(ws: WorkspaceDep, settings: SettingsDep) -> Health:
    """``ok`` with the number of sources and messages once the store answered a check
    within ``MLENS_HEALTH_TIMEOUT_SECONDS``; a 503 problem naming the store otherwise
    (unreachable, too slow, or its file damaged)."""
    health = ws.health(settings.health_timeout_seconds)
    return Health(version=package_version(), messages=health.messages, sources=health.sources)
