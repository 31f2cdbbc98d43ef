"""``POST /v1/search/messages`` (scope ``search.read``): hybrid search of one source;
``POST /v1/search/all`` (same scope): several sources (every one by default) as one
ranking.

The contract's request (§2.3) and response (§2.4), bounds from DESIGN.md §3, plus two
optional request fields: ``explain`` (each hit's signals) and ``weights`` (this call's
overrides of the configured ``SearchWeights``). The body is the toolkit's
``toolkit.requests.SearchRequest`` (``SearchAllRequest``), handed to the Workspace as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Response
from starlette.concurrency import run_in_threadpool

from service.deps import WorkspaceDep, require_scope
from service.problems import problem_responses
from service.routing import GuardedRoute
from toolkit.models import SearchHit
from toolkit.requests import SearchAllRequest, SearchRequest
from toolkit.wire import SearchResult, search_result

router = APIRouter(tags=["search"], route_class=GuardedRoute)
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])

# The contract's body is `{items}` alone, so how much of the window had a vector (less
# than all only while the service embeds in the background) travels in headers.
COVERAGE_HEADERS = {
    "MLens-Scanned": {
        "description": "Messages in the scan window.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "MLens-Embedded": {
        "description": "Of those, messages with a vector; the others were ranked by their "
        "lexical signals (the service is still embedding, see /healthz).",
        "schema": {"type": "integer", "minimum": 0},
    },
}


def _search_route(
    path: str, summary: str, *, headers: dict[str, Any] | None = None
) -> Callable[[Endpoint], Endpoint]:
    """Register a search route: scope ``search.read``, ``SearchResult``, problems 404 and
    422 (and the 200 answer's ``headers`` when given)."""
    ok: dict[int | str, dict[str, Any]] = {200: {"headers": headers}} if headers else {}
    return router.post(
        path,
        response_model=SearchResult,
        summary=summary,
        responses={**ok, **problem_responses(404, 422)},
        dependencies=[Depends(require_scope("search.read"))],
    )


def _answer(hits: Sequence[SearchHit], headers: dict[str, str] | None = None) -> Response:
    """The 200 answer: ``SearchResult``, serialised once, here."""
    content = search_result(hits).model_dump_json()
    return Response(content, media_type="application/json", headers=headers)


# The routes are ``async def`` and hand the search and its answer to one worker thread:
# a plain ``def`` route takes one trip through the thread pool for the call and a
# second for FastAPI's check and serialisation of what it returns (and the check ran
# twice: once building the model, once against ``response_model``).


@_search_route(
    "/v1/search/messages", "Search the recent messages of a source", headers=COVERAGE_HEADERS
)
async def search_messages(body: SearchRequest, ws: WorkspaceDep) -> Response:
    """Rank the most recent `scan_messages_limit` messages (inside the period) for `query`.

    The score fuses semantic similarity, lexical coverage and phrase match, damped for
    very short messages; every hit carries up to two messages before and after it.
    While the service is still embedding in the background, messages without a vector
    are ranked by their lexical signals; `MLens-Embedded` of `MLens-Scanned` had one.
    """

    def search() -> Response:
        hits = ws.search(body)
        coverage = {"MLens-Scanned": str(hits.scanned), "MLens-Embedded": str(hits.embedded)}
        return _answer(hits, coverage)

    return await run_in_threadpool(search)


@_search_route("/v1/search/all", "Search the recent messages of several sources as one ranking")
async def search_all(body: SearchAllRequest, ws: WorkspaceDep) -> Response:
    """Rank the most recent `scan_messages_limit` messages of each source (every stored
    source unless `source_refs` names some) for `query`, as one list.

    Scores compare across sources: the windows are scored as one (the lexical signal's
    term weights are taken over all of them). Each hit names its source (`source_ref`,
    `source_title`) and carries up to two messages before and after it.
    """
    return await run_in_threadpool(lambda: _answer(ws.search_all(body)))
