"""What every face answers: one pydantic model per shape, and plain converters to them.

The /v1 service, the MCP tools and the CLI's ``--json`` answer these models and nothing
else, so a hit, a summary or a source reads the same wherever it comes from (the /v1
contract, ``/work/shared/spec/service-contract.md``, plus our additions):

- ``SearchHitOut`` (with ``ContextMessageOut`` neighbours and, with ``explain``,
  ``SignalsOut``) and ``SearchResult`` ``{items}``: ``POST /v1/search/…``;
- ``SummaryOut`` (``SectionOut`` of ``SectionItemOut``): the summaries' answer, with the
  engine and the language that wrote it;
- ``SourceOut`` with its ``TopicOut`` forum topics; ``SourceList``, ``TopicList``;
  ``SyncOut``: a live sync's counts and the source after it.

Times are ISO 8601 UTC with ``Z`` (``UtcTime``); message ids are strings. A field that
is absent says so in its own model (``SearchHitOut.signals`` is left out, not ``null``,
without ``explain``), so every face dumps a model the same way: ``model_dump(mode="json")``.

The converters (``hit_out``, ``summary_out``, ``source_out`` …) read the domain
dataclasses of ``toolkit.models`` by attribute: a field added to a dataclass reaches
every face once it is added to its model here. Request bodies are the faces' own.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from toolkit import models
from toolkit.models import SectionKind, SourceKind, iso_z
from toolkit.refs import source_link

UtcTime = Annotated[
    datetime,
    PlainSerializer(iso_z, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "example": "2024-05-01T12:00:00Z"}),
]
"""A datetime answered as ISO 8601 UTC with ``Z`` (naive is UTC): every time a face
answers (``toolkit.requests.fields.UtcDatetime`` adds the checks of a request's time)."""

REACTIONS_HELP = (
    "Reaction counts by emoji (`custom:<document id>` for a custom emoji, `paid` for paid "
    "reactions), the most given first; `{}` when the message has none."
)
"""The description of every message's ``reactions``."""

LINK_HELP = "Link to the message; empty where the messenger has none (personal chats, groups)."


class _Out(BaseModel):
    """An answer, read from a domain dataclass by attribute."""

    model_config = ConfigDict(from_attributes=True)


# Sources --------------------------------------------------------------------------------


class TopicOut(_Out):
    """A forum topic of a source."""

    topic_id: int = Field(description="The topic's id (`topic_id` of search and summaries).")
    title: str
    message_count: int = Field(description="Messages in the topic, service messages excluded.")
    last_message_at: UtcTime | None


class SourceOut(_Out):
    """A stored source: what it is, how much it holds, and its forum topics."""

    source_ref: str = Field(
        description="`GET /v1/sources/by-ref`: the reference exactly as the request gave it; "
        "a listing: the canonical ref (`@handle` or `c/<id>`), which every face takes back."
    )
    title: str
    kind: SourceKind
    message_count: int = Field(description="Messages stored, service messages excluded.")
    first_message_at: UtcTime | None
    last_message_at: UtcTime | None
    last_synced_at: UtcTime | None = Field(description="Last live sync; null if never.")
    link: str = Field(description="Public link of the source.")
    topics: list[TopicOut] = Field(
        default_factory=list, description="A forum's topics with their counts; empty otherwise."
    )
    timezone: str | None = Field(
        None,
        description="The source's own time zone (an IANA name such as `Europe/Berlin`, or "
        "a fixed offset such as `+03:00`), in which summaries read its times; null when "
        "unknown (UTC).",
    )
    timezone_origin: Literal["set", "inferred", "export"] | None = Field(
        None,
        description="Where `timezone` comes from: `set` by the user (`mlens timezone`), "
        "`inferred` from the hours its people write in (their quiet hours are night), or "
        "`export` (the exporting machine's offset); a set zone wins over an inferred one, "
        "which wins over the export's. Null when unknown.",
    )


class SourceList(_Out):
    """Every stored source."""

    items: list[SourceOut]


class TopicList(_Out):
    """The forum topics of one source (empty when it is no forum)."""

    source_ref: str = Field(description="The reference as the call gave it.")
    items: list[TopicOut]


class SyncOut(SourceOut):
    """What a live sync fetched, and the source's metadata after it."""

    fetched: int
    inserted: int
    updated: int
    unchanged: int
    watermark: int | None = Field(description="Highest message id synced so far.")
    complete: bool = Field(description="False when `limit` stopped it: call again for more.")
    comments: int = Field(
        0, description="Comments and post copies stored in the discussion group (with_comments)."
    )


# Search ---------------------------------------------------------------------------------


class ContextMessageOut(_Out):
    """A neighbour of a hit (contract §2.4)."""

    messenger_message_id: str
    text: str
    sender_peer_id: str
    posted_at: UtcTime
    message_link: str = Field(description=LINK_HELP)
    reactions: dict[str, int] = Field(default_factory=dict, description=REACTIONS_HELP)


class SignalsOut(_Out):
    """What a hit's score is made of (``explain``); each in [0, 1]."""

    semantic: float
    lexical: float
    phrase: float
    short_factor: float


class SearchHitOut(_Out):
    """One ranked message with up to two neighbours on each side (contract §2.4)."""

    source_ref: str = Field(
        description="The reference exactly as the request gave it (a search of every "
        "source: the source's `@handle` or `c/<id>`)."
    )
    messenger_message_id: str
    source_title: str
    text: str
    message_link: str = Field(description=LINK_HELP)
    posted_at: UtcTime
    score: float = Field(ge=0, le=1, description="Hybrid score in [0, 1]; higher is better.")
    context_before: list[ContextMessageOut] = Field(
        description="Up to 2 messages before the hit, oldest first, from its conversation: "
        "its own topic in a forum, else the whole source."
    )
    context_after: list[ContextMessageOut] = Field(
        description="Up to 2 messages after the hit, from the same conversation."
    )
    signals: SignalsOut | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description="Present when the request set `explain`.",
    )
    reactions: dict[str, int] = Field(default_factory=dict, description=REACTIONS_HELP)


class SearchResult(_Out):
    """Hits ordered by score, ties newest first (contract §2.4)."""

    items: list[SearchHitOut]


# Summaries ------------------------------------------------------------------------------


class SectionItemOut(_Out):
    """One line of a section and the messages it rests on."""

    text: str
    messenger_message_ids: list[str] = Field(description="The messages the line rests on.")


class SectionOut(_Out):
    """One section of a summary."""

    title: str
    body: str = Field(description="Section text; message links, when present, end it.")
    kind: SectionKind = Field(
        SectionKind.THREAD,
        description="`decisions`, `open_questions`, `plans`, `links` or `thread`.",
    )
    items: list[SectionItemOut] = Field(
        default_factory=list,
        description="The section's lines, each with the message ids it rests on.",
    )


class SummaryOut(_Out):
    """A summary (contract §2.2), with the engine and language that wrote it."""

    source_ref: str = Field(description="The reference exactly as the request gave it.")
    summary: str
    sections: list[SectionOut]
    important_messenger_message_ids: list[str] = Field(
        description="The messages the text rests on, most important first."
    )
    engine: str = Field(
        description="`extractive`, `llm` or `hybrid` (and a fallback, when one ran)."
    )
    language: str = Field(description="ISO 639-1 code of the language it is written in.")
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
    items_kept: int = Field(
        0,
        description="LLM engine: the model's lines that passed the grounding check (each "
        "cites messages of the window; its numbers, dates, times, @handles and link hosts "
        "are in the messages it cites).",
    )
    items_dropped: int = Field(
        0,
        description="LLM engine: the model's lines the grounding check dropped; hybrid: "
        "the rewrites it rejected (the offline line stands in their place).",
    )
    items_rewritten: int = Field(
        0, description="Hybrid engine: lines the model rewrote and the check accepted."
    )
    items_offline: int = Field(
        0, description="Hybrid engine: lines left as the offline engine wrote them."
    )
    summary_offline: bool = Field(
        False,
        description="Whether the summary paragraph is the offline engine's (the model's "
        "failed the grounding check, or its rewrite was rejected or not asked for).",
    )


# Converters -----------------------------------------------------------------------------


def hit_out(hit: models.SearchHit) -> SearchHitOut:
    """A search hit as every face answers it."""
    return SearchHitOut.model_validate(hit)


def search_result(hits: Iterable[models.SearchHit]) -> SearchResult:
    """Hits, in their order, as ``{items}``."""
    return SearchResult(items=[hit_out(hit) for hit in hits])


def summary_out(summary: models.Summary) -> SummaryOut:
    """A summary as every face answers it (its fields read by name)."""
    return SummaryOut.model_validate(summary)


def topic_out(topic: models.TopicStats) -> TopicOut:
    """A forum topic as every face answers it."""
    return TopicOut.model_validate(topic)


def source_out(stats: models.SourceStats, source_ref: str | None = None) -> SourceOut:
    """A stored source, named by ``source_ref`` (default: its canonical ref)."""
    source = stats.source
    return SourceOut(
        source_ref=source.key if source_ref is None else source_ref,
        title=source.title,
        kind=source.kind,
        message_count=stats.message_count,
        first_message_at=stats.first_message_at,
        last_message_at=stats.last_message_at,
        last_synced_at=stats.last_synced_at,
        link=source_link(source),
        topics=[topic_out(topic) for topic in stats.topics],
        timezone=source.timezone,
        timezone_origin=source.timezone_origin,
    )


def sync_out(
    stats: models.SourceStats, source_ref: str, report: models.SyncReport, *, complete: bool
) -> SyncOut:
    """A sync's counts (``report``: what it fetched and stored) and the source after it;
    ``complete`` is false when a limit stopped it."""
    return SyncOut(
        **source_out(stats, source_ref).model_dump(),
        fetched=report.fetched,
        inserted=report.result.inserted,
        updated=report.result.updated,
        unchanged=report.result.unchanged,
        watermark=report.watermark_after,
        complete=complete,
        comments=report.comments,
    )
