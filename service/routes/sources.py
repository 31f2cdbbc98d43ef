"""``/v1/sources/by-ref``: a source's metadata, and a live sync of it (ref never in the path)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from service.deps import (
    MessengerClientFactoryDep,
    SourcesReadScope,
    SourcesWriteScope,
    WorkspaceDep,
)
from service.problems import problem_responses
from service.routing import GuardedRoute
from toolkit.requests import SyncRequest
from toolkit.requests.fields import SourceRefStr
from toolkit.wire import SourceOut, SyncOut, source_out, sync_out

router = APIRouter(prefix="/v1/sources", tags=["sources"], route_class=GuardedRoute)


@router.get(
    "/by-ref",
    response_model=SourceOut,
    summary="Metadata of a source",
    responses=problem_responses(404),
)
def get_source_by_ref(
    source_ref: Annotated[
        SourceRefStr,
        Query(description="`@handle`, `t.me/handle`, `t.me/c/<id>` …", examples=["@durov"]),
    ],
    ws: WorkspaceDep,
    _: SourcesReadScope,
) -> SourceOut:
    """Title, kind, message count, first and last message time and last sync of a source."""
    return source_out(ws.source_stats(source_ref), source_ref)


@router.post(
    "/by-ref/sync",
    response_model=SyncOut,
    summary="Fetch a source's new messages live",
    responses=problem_responses(404, 502, 503, 504),
)
def sync_source_by_ref(
    body: SyncRequest,
    _: SourcesWriteScope,
    ws: WorkspaceDep,
    new_client: MessengerClientFactoryDep,
) -> SyncOut:
    """Fetch new messages oldest first from the last sync's watermark (503 if not configured).

    A long FloodWait answers 503 with ``Retry-After``; what arrived before it is kept.
    """
    # Synced messages are embedded by the searches that read them, as before: the sync
    # answers without waiting for the model.
    report = ws.sync(
        body.source_ref,
        new_client(),
        limit=body.limit,
        embed=False,
        with_comments=body.with_comments,
    )
    return sync_out(
        ws.source_stats(report.source),
        body.source_ref,
        report,
        complete=report.fetched < body.limit,
    )
