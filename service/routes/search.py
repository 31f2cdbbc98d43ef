"""``POST /v1/search/messages`` (scope ``search.read``): hybrid search of one source;
``POST /v1/search/all`` (same scope): several sources (every one by default) as one
ranking.

The contract's request (§2.3) and response (§2.4), bounds from DESIGN.md §3, plus two
optional request fields: ``explain`` (each hit's signals) and ``weights`` (this call's
overrides of the configured ``SearchWeights``). The body becomes one
``toolkit.requests.SearchRequest`` (``SearchAllRequest``) that the Workspace hands its
searcher.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from starlette.concurrency import run_in_threadpool

from service.deps import WorkspaceDep, require_scope
from service.problems import problem_responses
from service.routing import GuardedRoute
from service.schemas import (
    HitLimit,
    QueryText,
    ScanLimit,
    SenderPeerIds,
    SourceRefStr,
    StrictFlag,
    StrictNumber,
    TopicId,
    UtcDatetime,
    check_not_before,
)
from toolkit import requests
from toolkit.models import SearchHit
from toolkit.wire import SearchResult, search_result

router = APIRouter(tags=["search"], route_class=GuardedRoute)
MAX_SOURCE_REFS = 1000
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
AnySearch = TypeVar("AnySearch", requests.SearchRequest, requests.SearchAllRequest)

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


class WeightsOverride(BaseModel):
    """Per-call overrides of the configured search weights (any subset of fields)."""

    model_config = ConfigDict(extra="forbid")

    semantic: StrictNumber | None = Field(None, description="Weight of the semantic signal.")
    lexical: StrictNumber | None = Field(None, description="Weight of lexical coverage.")
    phrase: StrictNumber | None = Field(None, description="Weight of the phrase match.")
    short_floor: StrictNumber | None = Field(None, description="Short factor of an empty message.")
    short_scale: StrictNumber | None = Field(None, description="Content terms of the short factor.")
    semantic_exponent: StrictNumber | None = Field(None, description="Shape of the semantic map.")


class _SearchBody(BaseModel):
    """The fields both searches take, described as for one source."""

    query: QueryText = Field(description="Search text: 1..1000 characters, not blank.")
    # Absent: the service's Settings decide (DESIGN.md §3 Defaults), so the schema
    # names the setting rather than a number that may not be the one in force.
    limit: HitLimit | None = Field(
        None, description="Hits to return (1..100); default 20 (`MLENS_DEFAULT_LIMIT`)."
    )
    scan_messages_limit: ScanLimit | None = Field(
        None,
        description="Most recent messages to scan (1..10000); default 200 "
        "(`MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`).",
    )
    period_from: UtcDatetime | None = Field(None, description="Scan messages posted from here.")
    period_to: UtcDatetime | None = Field(
        None, description="Scan messages posted up to here; not before period_from."
    )
    explain: StrictFlag = Field(False, description="Add each hit's four signals.")
    weights: WeightsOverride | None = Field(
        None, description="Override some of the configured ranking weights for this call."
    )
    topic_id: TopicId | None = Field(None, description="Scan only this forum topic.")
    sender_peer_ids: SenderPeerIds | None = Field(
        None, description="Scan only these senders' messages (the window is theirs)."
    )

    @field_validator("period_to")
    @classmethod
    def _not_before_from(
        cls, value: UtcDatetime | None, info: ValidationInfo
    ) -> UtcDatetime | None:
        return check_not_before(value, info, other="period_from", strict=False)

    def to_request(self, request_type: type[AnySearch]) -> AnySearch:
        """The toolkit request of ``request_type`` this body asks for."""
        overrides = self.weights.model_dump(exclude_none=True) if self.weights else None
        return requests.request_from(request_type, self, weights=overrides)


class SearchRequest(_SearchBody):
    """A search of one source's recent messages (contract §2.3)."""

    source_ref: SourceRefStr = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")


class SearchAllRequest(_SearchBody):
    """A search of the recent messages of several sources, ranked as one list."""

    source_refs: list[SourceRefStr] | None = Field(
        None,
        min_length=1,
        max_length=MAX_SOURCE_REFS,
        description="The sources to search (each echoed in its hits as given); "
        "absent: every stored source (hits carry its `@handle` or `c/<id>`).",
    )
    limit: HitLimit | None = Field(
        None,
        description="Hits to return over all sources (1..100); default 20 (`MLENS_DEFAULT_LIMIT`).",
    )
    scan_messages_limit: ScanLimit | None = Field(
        None,
        description="Most recent messages to scan in EACH source (1..10000); default 200 "
        "(`MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`). Sources × this may be at most "
        "`MLENS_SEARCH_ALL_MAX_SCAN` (100000 by default): above it, 422.",
    )
    topic_id: TopicId | None = Field(None, description="Scan only this forum topic of each.")
    sender_peer_ids: SenderPeerIds | None = Field(
        None, description="Scan only these senders' messages (the windows are theirs)."
    )


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
        hits = ws.search(body.to_request(requests.SearchRequest))
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
    return await run_in_threadpool(
        lambda: _answer(ws.search_all(body.to_request(requests.SearchAllRequest)))
    )
