"""Summaries: ``POST /v1/summaries/chat``, ``/v1/summaries/channel`` (a period) and
``POST /v1/sources/by-ref/summary`` (what a source is about, no period wording).

All three need the ``summary.run`` scope. The engine that wrote the answer (``llm`` or
``extractive``) is in the ``X-Summary-Engine`` header; the body is the contract's shape.
Each body becomes one ``toolkit.requests`` object that the Workspace hands the pipeline.
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from service.deps import SummaryScope, WorkspaceDep
from service.problems import problem_responses
from service.routing import GuardedRoute
from service.schemas import (
    LanguageCode,
    SenderPeerIds,
    SourceRefStr,
    StrictCount,
    TopicId,
    UtcDatetime,
    check_not_before,
)
from toolkit import requests
from toolkit.models import SourceKind, Summary
from toolkit.requests import MAX_SOURCE_MESSAGES

router = APIRouter(tags=["summaries"], route_class=GuardedRoute)

ENGINE_HEADER = "X-Summary-Engine"
ERRORS = problem_responses(404, 422, 502, 503, 504)


class SummaryRequest(BaseModel):
    """A period summary request (contract §2.1)."""

    source_ref: SourceRefStr = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")
    started_at: UtcDatetime = Field(description="Start of the period (inclusive).")
    ended_at: UtcDatetime = Field(description="End of the period (exclusive); after started_at.")
    language: LanguageCode = Field(description="ISO 639-1 code of the output language.")
    topic_id: TopicId | None = Field(None, description="Only this forum topic's messages.")
    sender_peer_ids: SenderPeerIds | None = Field(None, description="Only these senders' messages.")

    @field_validator("ended_at")
    @classmethod
    def _after_start(cls, value: UtcDatetime, info: ValidationInfo) -> UtcDatetime:
        checked = check_not_before(value, info, other="started_at", strict=True)
        assert checked is not None
        return checked


class SourceSummaryRequest(BaseModel):
    """What a source is about, from a sample spread over its whole life."""

    source_ref: SourceRefStr = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")
    language: LanguageCode = Field(description="ISO 639-1 code of the output language.")
    messages_limit: StrictCount | None = Field(
        None,
        ge=1,
        le=MAX_SOURCE_MESSAGES,
        description="Messages to read at most (1..5000), spread over the source's whole "
        "life when it has more; default 500 (`MLENS_SOURCE_SUMMARY_MESSAGES`).",
    )
    topic_id: TopicId | None = Field(None, description="Only this forum topic's messages.")
    sender_peer_ids: SenderPeerIds | None = Field(None, description="Only these senders' messages.")


class SectionItemOut(BaseModel):
    """One line of a section and the messages it rests on."""

    model_config = ConfigDict(from_attributes=True)

    text: str
    messenger_message_ids: list[str] = Field(description="The messages the line rests on.")


class SectionOut(BaseModel):
    """One section of a summary."""

    model_config = ConfigDict(from_attributes=True)

    title: str
    body: str = Field(description="Section text; message links, when present, end it.")
    kind: str = Field(
        "thread",
        description="`decisions`, `open_questions`, `plans`, `links` or `thread`.",
    )
    items: list[SectionItemOut] = Field(
        default_factory=list,
        description="The section's lines, each with the message ids it rests on.",
    )


class SummaryResponse(BaseModel):
    """A summary (contract §2.2)."""

    model_config = ConfigDict(from_attributes=True)

    source_ref: str = Field(description="The reference exactly as the request gave it.")
    summary: str
    sections: list[SectionOut]
    important_messenger_message_ids: list[str]
    messages_without_vector: int = Field(
        0,
        description="Messages of the window with no stored embedding yet (right after an "
        "import): the summary did not wait for them.",
    )
    sampled: tuple[int, int] | None = Field(
        None,
        description="[read, of] when the summary read a sample of its messages (a source "
        "spread over its life, or a window past the LLM's prompt budget, "
        "MLENS_LLM_MAX_PROMPT_TOKENS); null when it read them all.",
    )


def _answer(summary: Summary, response: Response) -> SummaryResponse:
    response.headers[ENGINE_HEADER] = summary.engine
    return SummaryResponse.model_validate(summary, from_attributes=True)


def _period_route(kind: SourceKind, summary: str, description: str) -> None:
    """Register ``POST /v1/summaries/<kind>``: a summary of ``[started_at, ended_at)`` in
    the prompt variant of ``kind`` (the operation is named ``summarize_<kind>``)."""

    def endpoint(
        body: SummaryRequest, _: SummaryScope, ws: WorkspaceDep, response: Response
    ) -> SummaryResponse:
        request = requests.request_from(requests.SummaryRequest, body, kind=kind)
        return _answer(ws.summarize(request), response)

    endpoint.__doc__ = description
    router.post(
        f"/v1/summaries/{kind.value}",
        name=f"summarize_{kind.value}",
        response_model=SummaryResponse,
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
    response_model=SummaryResponse,
    summary="What a source is about",
    responses=ERRORS,
)
def summarize_source_by_ref(
    body: SourceSummaryRequest, _: SummaryScope, ws: WorkspaceDep, response: Response
) -> SummaryResponse:
    """Describe a source from a sample spread over its whole life, with no period wording."""
    request = requests.request_from(requests.SourceSummaryRequest, body)
    return _answer(ws.summarize(request), response)
