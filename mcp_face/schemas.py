"""What the MCP tools answer: the /v1 contract's shapes, as structured tool output.

The service builds on them where the shapes are one (``UtcTime``, the source and its
topics), since it sits above this face.

A source is the ``GET /v1/sources/by-ref`` answer (its ``source_ref`` the canonical ref,
which every tool takes back), a search answer is ``{items: [hit]}`` of
``POST /v1/search/messages``, a summary the summaries' answer plus the ``engine`` and
``language`` that wrote it (the service puts the engine in a header). Times are ISO 8601
UTC with ``Z``; message ids are strings, as in the API.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from toolkit.models import iso_z

UtcTime = Annotated[
    datetime,
    PlainSerializer(iso_z, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "example": "2024-05-01T12:00:00Z"}),
]
"""A datetime answered as ISO 8601 UTC with ``Z`` (naive is UTC): every time the /v1
answers and the tools give (``service.schemas.UtcDatetime`` adds the request checks)."""


REACTIONS_HELP = (
    "Reaction counts by emoji (`custom:<document id>` for a custom emoji, `paid` for paid "
    "reactions), the most given first; `{}` when the message has none."
)
"""The description of every message's ``reactions`` (the service's included)."""


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class TopicOut(_Out):
    """A forum topic of a source."""

    topic_id: int = Field(description="The topic's id (`topic_id` of search and summaries).")
    title: str
    message_count: int = Field(description="Messages in the topic, service messages excluded.")
    last_message_at: UtcTime | None


# ``GET /v1/sources/by-ref`` answers these fields (``service.routes.sources.SourceInfo``),
# with the request's ``source_ref`` and the ``kind`` as an enum.
class SourceOut(_Out):
    """A stored source: what it is, how much it holds, and its forum topics."""

    source_ref: str = Field(description="Canonical ref (`@handle` or `c/<id>`): pass it back.")
    title: str
    kind: str = Field(description="`chat` or `channel`.")
    message_count: int = Field(description="Messages stored, service messages excluded.")
    first_message_at: UtcTime | None
    last_message_at: UtcTime | None
    last_synced_at: UtcTime | None = Field(description="Last live sync; null if never.")
    link: str = Field(description="Public link of the source.")
    topics: Sequence[TopicOut] = Field(description="A forum's topics; empty otherwise.")
    timezone: str | None = Field(
        None,
        description="The source's own time zone (an IANA name such as `Europe/Berlin`, or "
        "a fixed offset such as `+03:00`), in which summaries read its times; null when "
        "unknown (UTC).",
    )


class SourceList(_Out):
    """Every stored source."""

    items: list[SourceOut]


class TopicList(_Out):
    """The forum topics of one source (empty when it is no forum)."""

    source_ref: str = Field(description="The reference as the call gave it.")
    items: list[TopicOut]


class ContextMessageOut(_Out):
    """A neighbour of a hit."""

    messenger_message_id: str
    text: str
    sender_peer_id: str
    posted_at: UtcTime
    message_link: str = Field(description="Link to the message; empty where chats have none.")
    reactions: dict[str, int] = Field(default_factory=dict, description=REACTIONS_HELP)


class SearchHitOut(_Out):
    """One ranked message with up to two neighbours on each side."""

    source_ref: str = Field(description="The reference as the call gave it.")
    messenger_message_id: str
    source_title: str
    text: str
    message_link: str = Field(description="Link to the message; empty where chats have none.")
    posted_at: UtcTime
    score: float = Field(ge=0, le=1, description="Hybrid score in [0, 1]; higher is better.")
    context_before: list[ContextMessageOut] = Field(description="Up to 2 messages before.")
    context_after: list[ContextMessageOut] = Field(description="Up to 2 messages after.")
    signals: dict[str, float] | None = Field(
        None, description="semantic, lexical, phrase, short_factor (with `explain`)."
    )
    reactions: dict[str, int] = Field(default_factory=dict, description=REACTIONS_HELP)


class SearchResult(_Out):
    """Hits ordered by score, ties newest first."""

    items: list[SearchHitOut]


class SectionItemOut(_Out):
    """One line of a section and the messages it rests on."""

    text: str
    messenger_message_ids: list[str] = Field(description="The messages the line rests on.")


class SectionOut(_Out):
    """One section of a summary."""

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


class SummaryOut(_Out):
    """A summary, with the engine and language that wrote it."""

    source_ref: str = Field(description="The reference as the call gave it.")
    summary: str
    sections: list[SectionOut]
    important_messenger_message_ids: list[str] = Field(
        description="The messages the text rests on, most important first."
    )
    engine: str = Field(description="`extractive` or `llm` (and a fallback, when one ran).")
    messages_without_vector: int = Field(
        0, description="Messages with no stored embedding yet: the summary did not wait."
    )
    sampled: tuple[int, int] | None = Field(
        None,
        description="[read, of] when the summary read a sample of its messages (a source "
        "spread over its life, or a window past the LLM's prompt budget, "
        "MLENS_LLM_MAX_PROMPT_TOKENS); null when it read them all.",
    )
    language: str
