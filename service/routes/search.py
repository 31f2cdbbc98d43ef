"""``POST /v1/search/messages`` (scope ``search.read``): hybrid search of one source.

The contract's request (§2.3) and response (§2.4), bounds from DESIGN.md §3, plus two
optional request fields: ``explain`` (each hit's signals) and ``weights`` (this call's
overrides of the configured ``SearchWeights``). The ranking is ``toolkit.search``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from service.deps import SettingsDep, StoreDep, app_resource, require_scope
from service.problems import problem_responses
from service.schemas import (
    HitLimit,
    QueryText,
    ScanLimit,
    SourceRefStr,
    UtcDatetime,
    check_not_before,
)
from toolkit.embeddings import Embedder, get_embedder
from toolkit.models import ApiKeyRecord, ContextMessage, SearchHit
from toolkit.search.searcher import Searcher

router = APIRouter(tags=["search"])


class WeightsOverride(BaseModel):
    """Per-call overrides of the configured search weights (any subset of fields)."""

    model_config = ConfigDict(extra="forbid")

    semantic: float | None = Field(None, description="Weight of the semantic signal.")
    lexical: float | None = Field(None, description="Weight of lexical coverage.")
    phrase: float | None = Field(None, description="Weight of the phrase match.")
    short_floor: float | None = Field(None, description="Short factor of an empty message.")
    short_scale: float | None = Field(None, description="Content terms of the short factor.")
    semantic_exponent: float | None = Field(None, description="Shape of the semantic map.")


class SearchRequest(BaseModel):
    """A search of one source's recent messages (contract §2.3)."""

    source_ref: SourceRefStr = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")
    query: QueryText = Field(description="Search text: 1..1000 characters, not blank.")
    limit: HitLimit = Field(20, description="Hits to return (1..100).")
    scan_messages_limit: ScanLimit = Field(
        200, description="Most recent messages to scan (1..10000)."
    )
    period_from: UtcDatetime | None = Field(None, description="Scan messages posted from here.")
    period_to: UtcDatetime | None = Field(
        None, description="Scan messages posted up to here; not before period_from."
    )
    explain: bool = Field(False, description="Add each hit's four signals.")
    weights: WeightsOverride | None = Field(
        None, description="Override some of the configured ranking weights for this call."
    )

    @field_validator("period_to")
    @classmethod
    def _not_before_from(
        cls, value: UtcDatetime | None, info: ValidationInfo
    ) -> UtcDatetime | None:
        return check_not_before(value, info, other="period_from", strict=False)


class ContextMessageOut(BaseModel):
    """A neighbour of a hit (contract §2.4)."""

    messenger_message_id: str
    text: str
    sender_peer_id: str
    posted_at: UtcDatetime
    message_link: str


class Signals(BaseModel):
    """What a hit's score is made of (``explain``); each in [0, 1]."""

    semantic: float
    lexical: float
    phrase: float
    short_factor: float


class SearchHitOut(BaseModel):
    """One ranked message with up to two neighbours on each side (contract §2.4)."""

    source_ref: str = Field(description="The reference exactly as the request gave it.")
    messenger_message_id: str
    source_title: str
    text: str
    message_link: str
    posted_at: UtcDatetime
    score: float = Field(ge=0, le=1, description="Hybrid score in [0, 1]; higher is better.")
    context_before: list[ContextMessageOut]
    context_after: list[ContextMessageOut]
    signals: Signals | None = Field(None, description="Present when the request set `explain`.")


class SearchResponse(BaseModel):
    """Hits ordered by score, ties newest first (contract §2.4)."""

    items: list[SearchHitOut]


def get_searcher(request: Request, store: StoreDep, settings: SettingsDep) -> Searcher:
    """The app's searcher: one per process, sharing the app's embedder."""
    # Resolved first and apart: app_resource's lock is not re-entrant.
    embedder: Embedder = app_resource(request, "embedder", lambda: get_embedder(settings))
    return app_resource(
        request,
        "searcher",
        lambda: Searcher(
            store, embedder, weights=settings.search, embed_batch_size=settings.embed_batch_size
        ),
    )


def _context(messages: list[ContextMessage]) -> list[ContextMessageOut]:
    return [
        ContextMessageOut(
            messenger_message_id=m.messenger_message_id,
            text=m.text,
            sender_peer_id=m.sender_peer_id,
            posted_at=m.posted_at,
            message_link=m.message_link,
        )
        for m in messages
    ]


def _hit(hit: SearchHit) -> SearchHitOut:
    return SearchHitOut(
        source_ref=hit.source_ref,
        messenger_message_id=hit.messenger_message_id,
        source_title=hit.source_title,
        text=hit.text,
        message_link=hit.message_link,
        posted_at=hit.posted_at,
        score=hit.score,
        context_before=_context(hit.context_before),
        context_after=_context(hit.context_after),
        signals=Signals(**hit.signals) if hit.signals is not None else None,
    )


@router.post(
    "/v1/search/messages",
    response_model=SearchResponse,
    response_model_exclude_none=True,
    summary="Search the recent messages of a source",
    responses=problem_responses(404, 422),
)
def search_messages(
    body: SearchRequest,
    _: Annotated[ApiKeyRecord, Depends(require_scope("search.read"))],
    searcher: Annotated[Searcher, Depends(get_searcher)],
) -> SearchResponse:
    """Rank the most recent `scan_messages_limit` messages (inside the period) for `query`.

    The score fuses semantic similarity, lexical coverage and phrase match, damped for
    very short messages; every hit carries up to two messages before and after it.
    """
    overrides = body.weights.model_dump(exclude_none=True) if body.weights else None
    hits = searcher.search(
        body.source_ref,
        body.query,
        limit=body.limit,
        scan_messages_limit=body.scan_messages_limit,
        period_from=body.period_from,
        period_to=body.period_to,
        weights=overrides,
        explain=body.explain,
    )
    return SearchResponse(items=[_hit(h) for h in hits])
