"""The read-only tools, each a few lines over the ``Workspace`` as the /v1 routes are.

Every tool builds its ``toolkit.requests`` object as the CLI command does
(``toolkit.requests.search_request``, ``summary_request``: times as a person types
them, ISO 8601, a bare day naming the whole UTC day), so a limit left out takes the
Settings' default (``MLENS_DEFAULT_LIMIT`` …) and a ref that any face prints
(``@handle``, ``c/<id>``, a t.me link) is accepted.

Each answers as ``mcp_face.answers`` says (the /v1 shape, or a toolkit error as the
CLI's line); the descriptions state the bounds, the defaults in force and the summary
languages. (No ``from __future__ import annotations`` here: the parameters' annotations
carry descriptions made from the settings, evaluated where the tools are defined.)
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from mcp_face.answers import (
    ErrorText,
    Refuse,
    Senders,
    SourceRef,
    TopicId,
    answer,
    cli_line,
    source_out,
    tool_error,
)
from mcp_face.schemas import (
    SearchHitOut,
    SearchResult,
    SourceList,
    SummaryOut,
    TopicList,
    TopicOut,
)
from toolkit.requests import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SOURCE_MESSAGES,
    search_all_request,
    search_request,
    summary_request,
)
from toolkit.workspace import Workspace

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

MAX_SOURCE_REFS = 1000
"""Most sources one search_all call may name (as ``POST /v1/search/all``)."""

TOOL_SCOPES: dict[str, str] = {
    "list_sources": "sources.read",
    "list_topics": "sources.read",
    "search_messages": "search.read",
    "search_all": "search.read",
    "summarize_period": "summary.run",
    "summarize_source": "summary.run",
}
"""The API-key scope each tool needs over HTTP: the scope of its /v1 twin."""


@dataclass
class ToolSpec:
    """One tool: its function (typed parameters make the input schema) and description."""

    fn: Callable[..., CallToolResult]
    name: str
    title: str
    description: str


def _languages(ws: Workspace) -> str:
    codes = ws.summary_languages()
    if not codes:
        return "The configured summary engine cannot run: every summary fails until it is fixed."
    if codes != ws.summary_languages("extractive"):
        return "Languages: any ISO 639-1 code (an LLM endpoint writes the summary)."
    return (
        f"Languages: {', '.join(codes)} (the offline engine's; others need an LLM endpoint "
        "configured on the server)."
    )


def make_tools(
    ws: Workspace, error_text: ErrorText = cli_line, refuse: Refuse | None = None
) -> list[ToolSpec]:
    """The tools over ``ws``, their descriptions stating ``ws.settings``' defaults.

    Args:
        ws: the workspace every tool calls.
        error_text: the text of a toolkit error's tool error.
        refuse: checked before each call (the HTTP scope guard); ``None``: no check.
    """
    cfg = ws.settings
    languages = _languages(ws)

    def run(ctx: Context, name: str, make: Callable[[], BaseModel]) -> CallToolResult:
        refused = refuse(ctx.request_context, name) if refuse is not None else None
        if refused is not None:
            return tool_error(refused)
        return answer(make, error_text)

    def list_sources(ctx: Context) -> Annotated[CallToolResult, SourceList]:
        return run(ctx, "list_sources", lambda: SourceList(items=[*map(source_out, ws.sources())]))

    def list_topics(ctx: Context, source_ref: SourceRef) -> Annotated[CallToolResult, TopicList]:
        return run(
            ctx,
            "list_topics",
            lambda: TopicList(
                source_ref=source_ref,
                items=[TopicOut.model_validate(t) for t in ws.topics(source_ref)],
            ),
        )

    Query = Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description=f"What to look for: 1..{MAX_QUERY_CHARS} characters, not blank; "
            "any language.",
        ),
    ]
    Limit = Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_LIMIT,
            description=f"Hits to return (1..{MAX_LIMIT}); default {cfg.default_limit}.",
        ),
    ]
    Scan = Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_SCAN,
            description=f"Most recent messages to scan in a source (1..{MAX_SCAN}); default "
            f"{cfg.default_scan_messages_limit}. Older messages are not searched.",
        ),
    ]
    PeriodFrom = Annotated[
        str | None,
        Field(description="Scan only messages posted from here: ISO 8601 date or datetime."),
    ]
    PeriodTo = Annotated[
        str | None,
        Field(description="... up to here (inclusive; a bare date includes the whole day)."),
    ]
    Explain = Annotated[bool, Field(description="Add each hit's four signals.")]

    def search_messages(
        ctx: Context,
        source_ref: SourceRef,
        query: Query,
        limit: Limit = None,
        scan_messages_limit: Scan = None,
        period_from: PeriodFrom = None,
        period_to: PeriodTo = None,
        topic_id: TopicId = None,
        sender_peer_ids: Senders = None,
        explain: Explain = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        def make() -> SearchResult:
            request = search_request(
                source_ref,
                query,
                period=(period_from, period_to),
                limit=limit,
                scan_messages_limit=scan_messages_limit,
                explain=explain,
                topic_id=topic_id,
                sender_peer_ids=sender_peer_ids,
            )
            hits = ws.search(request)
            return SearchResult(items=[SearchHitOut.model_validate(h) for h in hits])

        return run(ctx, "search_messages", make)

    def search_all(
        ctx: Context,
        query: Query,
        source_refs: Annotated[
            list[str] | None,
            Field(
                min_length=1,
                max_length=MAX_SOURCE_REFS,
                description="Search only these sources (refs as for search_messages); "
                "default: every stored source.",
            ),
        ] = None,
        limit: Limit = None,
        scan_messages_limit: Scan = None,
        period_from: PeriodFrom = None,
        period_to: PeriodTo = None,
        topic_id: TopicId = None,
        sender_peer_ids: Senders = None,
        explain: Explain = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        def make() -> SearchResult:
            request = search_all_request(
                query,
                source_refs=source_refs,
                period=(period_from, period_to),
                limit=limit,
                scan_messages_limit=scan_messages_limit,
                explain=explain,
                topic_id=topic_id,
                sender_peer_ids=sender_peer_ids,
            )
            hits = ws.search_all(request)
            return SearchResult(items=[SearchHitOut.model_validate(h) for h in hits])

        return run(ctx, "search_all", make)

    language_field = Field(description=f"ISO 639-1 code of the summary's language. {languages}")

    def summarize_period(
        ctx: Context,
        source_ref: SourceRef,
        started_at: Annotated[
            str, Field(description="Start of the period (inclusive): ISO 8601 date or datetime.")
        ],
        ended_at: Annotated[
            str,
            Field(
                description="End of the period: a datetime is the first moment left out; a "
                "bare date includes that whole day."
            ),
        ],
        language: Annotated[str, language_field] = "en",
        kind: Annotated[
            Literal["chat", "channel"] | None,
            Field(description="Prompt variant; default: the source's own kind."),
        ] = None,
        topic_id: TopicId = None,
        sender_peer_ids: Senders = None,
    ) -> Annotated[CallToolResult, SummaryOut]:
        def make() -> SummaryOut:
            request = summary_request(
                source_ref,
                period=(started_at, ended_at),
                language=language,
                kind=kind,
                topic_id=topic_id,
                sender_peer_ids=sender_peer_ids,
            )
            return SummaryOut.model_validate(ws.summarize(request))

        return run(ctx, "summarize_period", make)

    def summarize_source(
        ctx: Context,
        source_ref: SourceRef,
        language: Annotated[str, language_field] = "en",
        messages_limit: Annotated[
            int | None,
            Field(
                ge=1,
                le=MAX_SOURCE_MESSAGES,
                description=f"Recent messages to read (1..{MAX_SOURCE_MESSAGES}); default "
                f"{cfg.source_summary_messages}.",
            ),
        ] = None,
        topic_id: TopicId = None,
        sender_peer_ids: Senders = None,
    ) -> Annotated[CallToolResult, SummaryOut]:
        def make() -> SummaryOut:
            request = summary_request(
                source_ref,
                period=None,
                language=language,
                messages_limit=messages_limit,
                topic_id=topic_id,
                sender_peer_ids=sender_peer_ids,
            )
            return SummaryOut.model_validate(ws.summarize(request))

        return run(ctx, "summarize_source", make)

    return [
        ToolSpec(
            list_sources,
            "list_sources",
            "List sources",
            "Every chat and channel in the store: its `source_ref` (pass it to the other "
            "tools), title, kind, message count, first and last message time, link and forum "
            "topics. Start here.",
        ),
        ToolSpec(
            list_topics,
            "list_topics",
            "List forum topics",
            "The forum topics of one source (id, title, message count, last message); empty "
            "for a source that is no forum. A topic's id is the `topic_id` of the search and "
            "summary tools.",
        ),
        ToolSpec(
            search_messages,
            "search_messages",
            "Search one source",
            "Hybrid search (meaning, words, exact phrase; very short messages damped) of the "
            f"most recent `scan_messages_limit` messages of one source (default "
            f"{cfg.default_scan_messages_limit}, at most {MAX_SCAN}), inside "
            "`period_from`..`period_to` when given. Returns at most `limit` hits (default "
            f"{cfg.default_limit}, at most {MAX_LIMIT}), best first, each with its link and "
            "up to 2 messages before and after it. To search older messages, raise "
            "`scan_messages_limit` or give a period.",
        ),
        ToolSpec(
            search_all,
            "search_all",
            "Search every source",
            "The same hybrid search over several sources at once (every stored source unless "
            "`source_refs` names some), as one ranking whose scores compare across sources; "
            "each hit names its source (`source_ref`, `source_title`). Scans the most recent "
            f"`scan_messages_limit` messages of each source (default "
            f"{cfg.default_scan_messages_limit}); sources × `scan_messages_limit` may not "
            f"exceed {cfg.search_all_max_scan}. At most `limit` hits (default "
            f"{cfg.default_limit}, at most {MAX_LIMIT}).",
        ),
        ToolSpec(
            summarize_period,
            "summarize_period",
            "Summarise a period",
            "A digest of what a source's messages of `[started_at, ended_at)` said: threads, "
            "who raised what, answers, decisions, open questions, links; for a channel what "
            "was announced. Times: ISO 8601 date or datetime, UTC unless an offset is given. "
            f"{languages} Answers `summary`, `sections` and the ids of the messages it rests "
            "on.",
        ),
        ToolSpec(
            summarize_source,
            "summarize_source",
            "Say what a source is about",
            "What a source is about, from its most recent `messages_limit` messages (default "
            f"{cfg.source_summary_messages}, at most {MAX_SOURCE_MESSAGES}); no period "
            f"wording. {languages}",
        ),
    ]
