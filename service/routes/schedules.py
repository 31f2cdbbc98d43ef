"""``/v1/schedules``: digest schedules (add, list, read, remove, run now, resend) and each one's
Atom feed; reading needs ``schedule.read``, the rest ``schedule.write``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from service.deps import ScheduleReadScope, ScheduleWriteScope, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute
from toolkit.limits import MAX_RECORD_ID
from toolkit.workspace import ScheduleList, ScheduleOut, ScheduleRequest

router = APIRouter(prefix="/v1/schedules", tags=["schedules"], route_class=GuardedRoute)
ScheduleId = Annotated[int, Path(ge=1, le=MAX_RECORD_ID, description="The schedule's id.")]


@router.get(
    "",
    response_model=ScheduleList,
    summary="Digest schedules",
    responses=problem_responses(422),  # the matrix's shape; a bare GET has nothing to refuse
)
def list_schedules(_: ScheduleReadScope, ws: WorkspaceDep) -> ScheduleList:
    """Every schedule, its last run and each destination's state (secrets masked)."""
    return ScheduleList(items=ws.schedules())


@router.post(
    "",
    response_model=ScheduleOut,
    status_code=201,
    summary="Add a digest schedule",
    responses=problem_responses(404),
)
def add_schedule(body: ScheduleRequest, _: ScheduleWriteScope, ws: WorkspaceDep) -> ScheduleOut:
    """Schedule a source's digest, daily or weekly at a time in the source's zone."""
    return ws.add_schedule(body.spec())


@router.delete(
    "/{schedule_id}",
    status_code=204,
    summary="Remove a digest schedule",
    responses=problem_responses(404),
)
def remove_schedule(schedule_id: ScheduleId, _: ScheduleWriteScope, ws: WorkspaceDep) -> Response:
    """Remove a schedule and its runs."""
    ws.remove_schedule(schedule_id)
    return Response(status_code=204)


@router.post(
    "/{schedule_id}/run",
    response_model=ScheduleOut,
    summary="Deliver a schedule's digest now",
    responses=problem_responses(404, 502, 503),
)
def run_schedule(schedule_id: ScheduleId, _: ScheduleWriteScope, ws: WorkspaceDep) -> ScheduleOut:
    """Write and deliver the digest of what came since the last one; the next scheduled
    digest follows on from here."""
    return ws.run_schedule_now(schedule_id)


@router.post(
    "/{schedule_id}/resend",
    response_model=ScheduleOut,
    summary="Send uncertain deliveries again",
    responses=problem_responses(404, 503),
)
def resend_schedule(
    schedule_id: ScheduleId, _: ScheduleWriteScope, ws: WorkspaceDep
) -> ScheduleOut:
    """Send again each destination whose outcome is `uncertain` (its worker stopped
    mid-send, so it may have arrived: resend when it did not)."""
    return ws.resend_uncertain(schedule_id)


@router.get(
    "/{schedule_id}/feed.atom",
    summary="A schedule's Atom feed",
    response_class=Response,
    responses={200: {"content": {"application/atom+xml": {}}}, **problem_responses(404)},
)
def schedule_feed(
    schedule_id: ScheduleId, request: Request, _: ScheduleReadScope, ws: WorkspaceDep
) -> Response:
    """The digests delivered to the schedule's feed destination, newest first."""
    document = ws.schedule_feed(schedule_id, str(request.url))
    return Response(document, media_type="application/atom+xml")
