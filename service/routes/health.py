"""``GET /healthz``: liveness, version, the store's size (in bounded time) and the
background embedding's progress; no key needed."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from service.deps import SettingsDep, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute

router = APIRouter(tags=["health"], route_class=GuardedRoute)


class Embedding(BaseModel):
    """Where the background embedding stands (``MLENS_BACKGROUND_EMBEDDING``)."""

    state: Literal["starting", "embedding", "done", "stopped", "failed"] = Field(
        description="starting (loading the model), embedding, done, stopped or failed; "
        "until done, searches rank messages without a vector by their lexical signals."
    )
    embedded: int = Field(description="Messages embedded since the service started.")
    queued: int = Field(description="Messages that lacked a vector when it started.")


Trouble = Literal["failed", "uncertain"]
_STATE = (
    "`failed`, or `uncertain`: its worker stopped mid-send, so it may have arrived; not "
    "sent again unless resent."
)


class FailingDestination(BaseModel):
    """A schedule's destination whose last delivery failed or may not have arrived."""

    schedule_id: int
    destination: str
    state: Trouble = Field("failed", description=_STATE)
    detail: str = Field(description="Why it failed.")


class FailingAlertDestination(BaseModel):
    """An alert's destination whose last delivery failed or may not have arrived."""

    alert_id: int
    destination: str
    state: Trouble = Field("failed", description=_STATE)
    detail: str = Field(description="Why it failed.")


class Health(BaseModel):
    """Liveness, the store's size and the background embedding's progress."""

    status: str = "ok"
    version: str
    messages: int = Field(description="Messages stored in every source.")
    sources: int = Field(description="Sources stored.")
    embedding: Embedding | None = Field(
        None, description="The background embedding; absent when none was started."
    )
    failing_deliveries: list[FailingDestination] = Field(
        default_factory=list,
        description="Digest destinations whose last delivery failed or may not have "
        "arrived, and why (`mlens schedule list` shows the same).",
    )
    failing_alerts: list[FailingAlertDestination] = Field(
        default_factory=list,
        description="Alert destinations whose last post failed, and why "
        "(`mlens alert list` shows the same).",
    )


def _trouble(state: str) -> Trouble:
    return "uncertain" if state == "uncertain" else "failed"


def package_version() -> str:
    """The installed distribution's version (``0+unknown`` when run from a bare tree)."""
    try:
        return version("message-lens")
    except PackageNotFoundError:
        return "0+unknown"


@router.get(
    "/healthz",
    response_model=Health,
    response_model_exclude_none=True,
    summary="Liveness",
    responses=problem_responses(503),
)
def healthz(ws: WorkspaceDep, settings: SettingsDep) -> Health:
    """``ok`` with the number of sources and messages once the store answered a check
    within ``MLENS_HEALTH_TIMEOUT_SECONDS``, and the background embedding's progress; a
    503 problem naming the store otherwise (unreachable, too slow, or its file damaged)."""
    health = ws.health(settings.service.health_timeout_seconds)
    progress = ws.embedding_progress()
    failing = [
        FailingDestination(schedule_id=i, destination=label, state=_trouble(state), detail=why)
        for i, label, state, why in ws.delivery_failures()
    ]
    alerts = [
        FailingAlertDestination(alert_id=i, destination=label, state=_trouble(state), detail=why)
        for i, label, state, why in ws.alert_failures()
    ]
    return Health(
        failing_deliveries=failing,
        failing_alerts=alerts,
        version=package_version(),
        messages=health.messages,
        sources=health.sources,
        embedding=None
        if progress is None
        else Embedding(state=progress.state, embedded=progress.embedded, queued=progress.queued),
    )
