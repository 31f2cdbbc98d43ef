"""Summaries: ``POST /v1/summaries/chat``, ``/v1/summaries/channel`` (a period) and
``POST /v1/sources/by-ref/summary`` (what a source is about, no period wording).

All three need the ``summary.run`` scope. The engine that wrote the answer (``llm`` or
``extractive``) is in the ``X-Summary-Engine`` header and, with the language, in the
body: the contract's shape plus ours (``toolkit.wire.SummaryOut``, as every face answers).
Each body is a ``toolkit.requests`` model, handed to the Workspace as it is (a period's
kind is the path's); the engine and the cache are the service's settings' to choose.
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from service.deps import SummaryScope, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute
from toolkit.models import SourceKind, Summary
from toolkit.requests import SourceSummaryRequest, SummaryRequest
from toolkit.wire import SummaryOut, summary_out

router = APIRouter(tags=["summaries"], route_class=GuardedRoute)

ENGINE_HEADER = "X-Summary-Engine"
ERRORS = problem_responses(404, 422, 502, 503, 504)


def _answer(summary: Summary, response: Response) -> SummaryOut:
    response.headers[ENGINE_HEADER] = summary.engine
    return summary_out(summary)


def _period_route(kind: SourceKind, summary: str, description: str) -> None:
    """Register ``POST /v1/summaries/<kind>``: a summary of ``[started_at, ended_at)`` in
    the prompt variant of ``kind`` (the operation is named ``summarize_<kind>``)."""

    def endpoint(
        body: SummaryRequest, _: SummaryScope, ws: WorkspaceDep, response: Response
    ) -> SummaryOut:
        return _answer(ws.summarize(body.model_copy(update={"kind": kind})), response)

    endpoint.__doc__ = description
    router.post(
        f"/v1/summaries/{kind.value}",
        name=f"summarize_{kind.value}",
        response_model=SummaryOut,
        summary=summary,
        responses=ERRORS,
    )(endpoint)


_period_route(
    SourceKind.CHAT,
    "Summarise a conversation over a period",
    "Threads, questions, decisions and open items of ``[started_at, ended_at)``.",
)
_period_route(
    SourceKind.CHANNEL,
    "Summarise a channel's posts over a period",
    "Announcements, topics and links of the posts in ``[started_at, ended_at)``.",
)


@router.post(
    "/v1/sources/by-ref/summary",
    response_model=SummaryOut,
    summary="What a source is about",
    responses=ERRORS,
)
def summarize_source_by_ref(
    body: SourceSummaryRequest, _: SummaryScope, ws: WorkspaceDep, response: Response
) -> SummaryOut:
    """Describe a source from a sample spread over its whole life, with no period wording."""
    return _answer(ws.summarize(body), response)
