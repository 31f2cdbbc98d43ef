"""``/v1/alerts``: alerts, saved searches whose new matches are posted (add, list, read,
remove, check now, resend what may not have arrived); reading needs ``schedule.read``,
the rest ``schedule.write`` (an alert is delivery's other rule: a key that manages
digests manages alerts)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from service.deps import ScheduleReadScope, ScheduleWriteScope, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute
from toolkit.limits import MAX_RECORD_ID
from toolkit.workspace import AlertList, AlertOut, AlertRequest

router = APIRouter(prefix="/v1/alerts", tags=["alerts"], route_class=GuardedRoute)
AlertId = Annotated[int, Path(ge=1, le=MAX_RECORD_ID, description="The alert's id.")]


@router.get("", response_model=AlertList, summary="Alerts", responses=problem_responses(422))
def list_alerts(_: ScheduleReadScope, ws: WorkspaceDep) -> AlertList:
    """Every alert, its latest post and each destination's state (secrets masked)."""
    return AlertList(items=ws.alerts())


@router.post(
    "",
    response_model=AlertOut,
    status_code=201,
    summary="Add an alert",
    responses=problem_responses(404),
)
def add_alert(body: AlertRequest, _: ScheduleWriteScope, ws: WorkspaceDep) -> AlertOut:
    """Save a search: each new message whose hybrid-ranking score reaches `min_score` is
    posted to the destinations, at most `max_per_hour` an hour."""
    return ws.add_alert(body)


@router.get(
    "/{alert_id}", response_model=AlertOut, summary="An alert", responses=problem_responses(404)
)
def get_alert(alert_id: AlertId, _: ScheduleReadScope, ws: WorkspaceDep) -> AlertOut:
    """One alert, its latest post and each destination's state."""
    return ws.alert(alert_id)


@router.delete(
    "/{alert_id}", status_code=204, summary="Remove an alert", responses=problem_responses(404)
)
def remove_alert(alert_id: AlertId, _: ScheduleWriteScope, ws: WorkspaceDep) -> Response:
    """Remove an alert and its posts."""
    ws.remove_alert(alert_id)
    return Response(status_code=204)


@router.post(
    "/{alert_id}/run",
    response_model=AlertOut,
    summary="Check an alert now",
    responses=problem_responses(404, 503),
)
def run_alert(alert_id: AlertId, _: ScheduleWriteScope, ws: WorkspaceDep) -> AlertOut:
    """Post the alert's new matches now (within its cap) rather than at the next tick."""
    return ws.run_alert_now(alert_id)


@router.post(
    "/{alert_id}/resend",
    response_model=AlertOut,
    summary="Post uncertain deliveries again",
    responses=problem_responses(404, 503),
)
def resend_alert(alert_id: AlertId, _: ScheduleWriteScope, ws: WorkspaceDep) -> AlertOut:
    """Post again each destination whose outcome is `uncertain` (its worker stopped
    mid-send, so it may have arrived: resend when it did not)."""
    return ws.resend_alert_uncertain(alert_id)
