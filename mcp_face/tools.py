"""The read-only tools: a table of names, parameters, answers and descriptions over the
``Workspace``, each tool's work a few lines as the /v1 routes are.

Every tool builds its ``toolkit.requests`` object as the CLI command does
(``toolkit.requests.search_request``, ``summary_request``: times as a person types
them, ISO 8601, a bare day naming the whole UTC day), so a limit left out takes the
Settings' default (``MLENS_DEFAULT_LIMIT`` …) and a ref that any face prints
(``@handle``, ``c/<id>``, a t.me link) is accepted. A tool's parameters are named from
``mcp_face.params`` (each defined once) and passed on under their own names.

Each answers as ``mcp_face.answers`` says (the /v1 shape, or a toolkit error as the
CLI's line); the descriptions state the bounds, the defaults in force and the summary
languages.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from mcp_face.answers import ErrorText, Refuse, answer, cli_line, tool_error
from mcp_face.params import FILTERS, SEARCH_OPTIONS, bounds, parameters, tool_function
from toolkit.requests import (
    SearchRequest,
    SourceSummaryRequest,
    search_all_request,
    search_request,
    summary_request,
)
from toolkit.wire import (
    SearchResult,
    SourceList,
    SummaryOut,
    TopicList,
    search_result,
    source_out,
    summary_out,
    topic_out,
)
from toolkit.workspace import AlertList, ScheduleList, Workspace

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

TOOL_SCOPES: dict[str, str] = {
    "list_sources": "sources.read",
    "list_topics": "sources.read",
    "search_messages": "search.read",
    "search_all": "search.read",
    "summarize_period": "summary.run",
    "summarize_source": "summary.run",
    "list_schedules": "schedule.read",
    "list_alerts": "schedule.read",
}
"""The API-key scope each tool needs over HTTP: the scope of its /v1 twin."""


@dataclass
class ToolSpec:
    """One tool: its function (its signature makes the input schema) and description."""

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


class _Answers:
    """What each tool answers, given its arguments by name (the request built as the CLI
    builds it, each option passed on under its own name)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def list_sources(self) -> SourceList:
        return SourceList(items=[*map(source_out, self.ws.sources())])

    def list_topics(self, source_ref: str) -> TopicList:
        topics = [topic_out(t) for t in self.ws.topics(source_ref)]
        return TopicList(source_ref=source_ref, items=topics)

    def search_messages(
        self,
        source_ref: str,
        query: str,
        period_from: str | None,
        period_to: str | None,
        **options: Any,
    ) -> SearchResult:
        request = search_request(source_ref, query, period=(period_from, period_to), **options)
        return search_result(self.ws.search(request))

    def search_all(
        self,
        query: str,
        source_refs: list[str] | None,
        period_from: str | None,
        period_to: str | None,
        **options: Any,
    ) -> SearchResult:
        period = (period_from, period_to)
        request = search_all_request(query, source_refs=source_refs, period=period, **options)
        return search_result(self.ws.search_all(request))

    def summarize_period(
        self, source_ref: str, started_at: str, ended_at: str, **options: Any
    ) -> SummaryOut:
        request = summary_request(source_ref, period=(started_at, ended_at), **options)
        return summary_out(self.ws.summarize(request))

    def summarize_source(self, source_ref: str, **options: Any) -> SummaryOut:
        request = summary_request(source_ref, period=None, **options)
        return summary_out(self.ws.summarize(request))

    def list_schedules(self) -> ScheduleList:
        return ScheduleList(items=self.ws.schedules())

    def list_alerts(self) -> AlertList:
        return AlertList(items=self.ws.alerts())


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
    params = parameters(cfg, languages)
    answers = _Answers(ws)
    most_hits = bounds(SearchRequest, "limit")["le"]
    most_scanned = bounds(SearchRequest, "scan_messages_limit")["le"]
    most_read = bounds(SourceSummaryRequest, "messages_limit")["le"]

    def run(name: str, ctx: Context, **arguments: Any) -> CallToolResult:
        refused = refuse(ctx.request_context, name) if refuse is not None else None
        if refused is not None:
            return tool_error(refused)
        make: Callable[..., BaseModel] = getattr(answers, name)
        return answer(partial(make, **arguments), error_text)

    # name, its parameters, the model it answers; title and description.
    table: list[tuple[str, tuple[str, ...], type[BaseModel], str, str]] = [
        (
            "list_sources",
            (),
            SourceList,
            "List sources",
            "Every chat and channel in the store: its `source_ref` (pass it to the other "
            "tools), title, kind, message count, first and last message time, link and forum "
            "topics. Start here.",
        ),
        (
            "list_topics",
            ("source_ref",),
            TopicList,
            "List forum topics",
            "The forum topics of one source (id, title, message count, last message); empty "
            "for a source that is no forum. A topic's id is the `topic_id` of the search and "
            "summary tools.",
        ),
        (
            "search_messages",
            ("source_ref", "query", *SEARCH_OPTIONS),
            SearchResult,
            "Search one source",
            "Hybrid search (meaning, words, exact phrase; very short messages damped) of the "
            f"most recent `scan_messages_limit` messages of one source (default "
            f"{cfg.search.default_scan_messages_limit}, at most {most_scanned}), inside "
            "`period_from`..`period_to` when given. Returns at most `limit` hits (default "
            f"{cfg.search.default_limit}, at most {most_hits}), best first, each with its link and "
            "up to 2 messages before and after it. To search older messages, raise "
            "`scan_messages_limit` or give a period.",
        ),
        (
            "search_all",
            ("query", "source_refs", *SEARCH_OPTIONS),
            SearchResult,
            "Search every source",
            "The same hybrid search over several sources at once (every stored source unless "
            "`source_refs` names some), as one ranking whose scores compare across sources; "
            "each hit names its source (`source_ref`, `source_title`). Scans the most recent "
            f"`scan_messages_limit` messages of each source (default "
            f"{cfg.search.default_scan_messages_limit}); sources × `scan_messages_limit` may not "
            f"exceed {cfg.search.all_max_scan}. At most `limit` hits (default "
            f"{cfg.search.default_limit}, at most {most_hits}).",
        ),
        (
            "summarize_period",
            ("source_ref", "started_at", "ended_at", "language", "kind", *FILTERS),
            SummaryOut,
            "Summarise a period",
            "A digest of what a source's messages of `[started_at, ended_at)` said: threads, "
            "who raised what, answers, decisions, open questions, links; for a channel what "
            "was announced. Times: ISO 8601 date or datetime, UTC unless an offset is given. "
            f"{languages} Answers `summary`, `sections` and the ids of the messages it rests "
            "on.",
        ),
        (
            "summarize_source",
            ("source_ref", "language", "messages_limit", *FILTERS),
            SummaryOut,
            "Say what a source is about",
            "What a source is about, from `messages_limit` messages spread over its whole "
            "life (default "
            f"{cfg.summary.source_messages}, at most {most_read}); no period "
            f"wording. {languages}",
        ),
        (
            "list_schedules",
            (),
            ScheduleList,
            "List digest schedules",
            "Every digest schedule: its source, when it is due (daily or weekly, HH:MM in "
            "the source's time zone), language, its last run (the period covered, status) "
            "and each destination (Telegram, webhook, e-mail, Atom feed) with its last "
            "delivery's state and, when it failed, why. Secrets are masked.",
        ),
        (
            "list_alerts",
            (),
            AlertList,
            "List alerts",
            "Every alert: its saved search (query, sources or all), the hybrid-ranking "
            "score a new message must reach, its cap of posts per hour, how many posts "
            "it made in the last hour and how many matches the cap held back, its latest "
            "post and each destination (Telegram, webhook, e-mail) with its last "
            "delivery's state. Secrets are masked.",
        ),
    ]
    return [
        ToolSpec(
            tool_function(name, [params[p] for p in names], out, partial(run, name)),
            name,
            title,
            description,
        )
        for name, names, out, title, description in table
    ]
