"""The MCP tools over a workspace: the /v1 shapes, the Settings' defaults, the CLI's errors."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from mcp_calls import Call, error_text
from mcp_types import Tool
from summary_data import NO_PACK

from cli.render import hit_record, source_record, summary_record
from mcp_face import TOOL_SCOPES
from toolkit import Workspace
from toolkit.errors import ToolkitError
from toolkit.requests import (
    SearchRequest,
    SourceSummaryRequest,
    search_all_request,
    search_request,
    summary_request,
)


def _plain(record: object) -> object:
    """A CLI ``--json`` record as JSON reads it back (times as ``…Z`` text)."""
    from cli.render import _plain as to_json

    return json.loads(json.dumps(record, default=to_json))


def test_the_five_read_only_tools_state_their_bounds(listed: list[Tool]) -> None:
    assert [t.name for t in listed] == list(TOOL_SCOPES)
    for tool in listed:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint
        assert tool.description
        assert tool.output_schema
    by_name = {t.name: t for t in listed}
    search = by_name["search_messages"]
    assert "default 200, at most 10000" in (search.description or "")
    limit = search.input_schema["properties"]["limit"]
    assert {"minimum": 1, "maximum": 100}.items() <= limit["anyOf"][0].items()
    language = by_name["summarize_period"].input_schema["properties"]["language"]
    assert "en, ru, uk" in language["description"]


def test_list_sources_is_the_cli_json(call: Call, workspace: Workspace) -> None:
    result = call("list_sources")
    assert not result.is_error
    expected = [_plain(source_record(s)) for s in workspace.sources()]
    assert result.structured_content == {"items": expected}
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]


def test_list_topics_of_a_chat_without_topics(call: Call, trip_chat: str) -> None:
    result = call("list_topics", source_ref=trip_chat)
    assert result.structured_content == {"source_ref": trip_chat, "items": []}


def test_search_answers_the_workspace_hits_with_the_settings_defaults(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    result = call("search_messages", source_ref=trip_chat, query="train tickets to Berlin")
    hits = workspace.search(SearchRequest(source_ref=trip_chat, query="train tickets to Berlin"))
    assert result.structured_content == {"items": [_plain(hit_record(h)) for h in hits]}
    assert len(hits) == workspace.settings.search.default_limit  # the chat has more messages


def test_search_all_answers_the_workspace_hits(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    result = call("search_all", query="hotel breakfast", limit=3)
    hits = workspace.search_all(search_all_request("hotel breakfast", limit=3))
    assert result.structured_content == {"items": [_plain(hit_record(h)) for h in hits]}
    assert len(hits) == 3


def test_search_takes_a_bare_day_and_the_printed_ref(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    (stats,) = workspace.sources()
    result = call(
        "search_messages",
        source_ref=stats.source.key,
        query="hotel",
        limit=3,
        period_to="2026-03-03",
        explain=True,
    )
    items = result.structured_content["items"]  # type: ignore[index]
    assert 0 < len(items) <= 3
    assert all(i["posted_at"] < "2026-03-04" for i in items)
    assert set(items[0]["signals"]) == {"semantic", "lexical", "phrase", "short_factor"}


@pytest.mark.slow
def test_summaries_are_the_workspace_summaries(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    result = call(
        "summarize_period",
        source_ref=trip_chat,
        started_at="2026-03-02",
        ended_at="2026-03-03",
        language="ru",
    )
    period = ("2026-03-02", "2026-03-03")
    summary = workspace.summarize(summary_request(trip_chat, period=period, language="ru"))
    assert result.structured_content == _plain(summary_record(summary))
    about = call("summarize_source", source_ref=trip_chat, messages_limit=20)
    expected = workspace.summarize(
        SourceSummaryRequest(source_ref=trip_chat, language="en", messages_limit=20)
    )
    assert about.structured_content == _plain(summary_record(expected))


ERRORS: list[tuple[str, dict[str, Any]]] = [
    ("search_messages", {"source_ref": "@no_such_chat", "query": "x"}),
    ("search_messages", {"source_ref": "@nope", "query": "x"}),
    ("search_messages", {"source_ref": "@trip_planning", "query": "x", "period_from": "May"}),
    ("list_topics", {"source_ref": "t.me/c/123"}),
    ("search_all", {"query": "x", "source_refs": ["@no_such_chat"]}),
    (
        "summarize_period",
        {"source_ref": "@trip_planning", "started_at": "2026-03-05", "ended_at": "2026-03-02"},
    ),
    (
        "summarize_period",
        {"source_ref": "@trip_planning", "started_at": "yesterday", "ended_at": "2026-03-02"},
    ),
    ("summarize_source", {"source_ref": "@trip_planning", "language": NO_PACK}),
    ("summarize_source", {"source_ref": "@trip_planning", "language": "english"}),
]
"""Unknown and invalid refs, bad periods and languages: (tool, arguments)."""


@pytest.mark.slow
def test_a_toolkit_error_is_the_line_the_cli_prints(call: Call, workspace: Workspace) -> None:
    # One import of the chat for every case (each costs an embedding of it).
    for tool, arguments in ERRORS:
        with pytest.raises(ToolkitError) as raised:
            _run_directly(workspace, tool, arguments)
        assert error_text(call(tool, **arguments)) == str(raised.value), (tool, arguments)


def _run_directly(workspace: Workspace, tool: str, arguments: dict[str, Any]) -> None:
    """What the CLI does with the same input (whose message it prints after ``error:``)."""
    ref = arguments.get("source_ref", "")
    if tool == "list_topics":
        workspace.topics(ref)
    elif tool == "search_all":
        request = search_all_request(arguments["query"], source_refs=arguments["source_refs"])
        workspace.search_all(request)
    elif tool == "search_messages":
        period = (arguments.get("period_from"), None)
        workspace.search(search_request(ref, arguments["query"], period=period))
    elif tool == "summarize_period":
        period = (arguments["started_at"], arguments["ended_at"])
        workspace.summarize(summary_request(ref, period=period))
    else:
        workspace.summarize(summary_request(ref, period=None, language=arguments["language"]))


def test_arguments_out_of_bounds_are_a_tool_error(call: Call, trip_chat: str) -> None:
    for arguments in ({"limit": 0}, {"limit": 101}, {"scan_messages_limit": 10001}, {"query": ""}):
        result = call("search_messages", **{"source_ref": trip_chat, "query": "x", **arguments})
        assert result.is_error
        assert result.structured_content is None


HOSTILE = [
    ("list_topics", {"source_ref": "https://[t.me/abc"}),
    ("search_messages", {"source_ref": "tg://[resolve", "query": "x"}),
    (
        "search_messages",
        {"source_ref": "@trip_planning", "query": "x", "period_from": "0001-01-01T00:00:00+14:00"},
    ),
    (
        "summarize_period",
        {"source_ref": "@trip_planning", "started_at": "2026-03-01", "ended_at": "9999-12-31"},
    ),
    (
        "summarize_period",
        {
            "source_ref": "@trip_planning",
            "started_at": "2026-03-01T00:00\x00+03:00",
            "ended_at": "9999-12-31T23:59:59-12:00",
        },
    ),
]
"""Malformed refs and times out of range once in UTC (issue 33): (tool, arguments)."""


def test_malformed_refs_and_times_are_the_cli_line_and_log_no_error(
    call: Call, workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for tool, arguments in HOSTILE:
        with pytest.raises(ToolkitError) as raised:
            _run_directly(workspace, tool, arguments)
        assert error_text(call(tool, **arguments)) == str(raised.value), (tool, arguments)
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not loud, [r.getMessage() for r in loud]


def test_a_period_at_the_calendars_edge_in_the_sources_zone_is_a_tool_error(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    """``0001-01-01Z`` is in year 0 at -05:00: the same line as the CLI's, no traceback."""
    workspace.set_timezone(trip_chat, "-05:00")
    result = call(
        "summarize_period",
        source_ref=trip_chat,
        started_at="0001-01-01T00:00:00Z",
        ended_at="2026-03-03",
    )
    assert result.is_error
    assert error_text(result) == (
        "started_at 0001-01-01T00:00:00Z is out of range in the source's time zone -05:00 "
        "(years 1 to 9999); give a later start or an earlier end"
    )


def test_list_alerts_is_the_workspace_alerts_with_secrets_masked(
    call: Call, workspace: Workspace, trip_chat: str
) -> None:
    from toolkit.workspace import AlertRequest

    hook = {"kind": "webhook", "url": "https://example.org/in", "secret": "alert-secret"}
    request = AlertRequest(query="train tickets", min_score=0.2, destinations=[hook])
    added = workspace.add_alert(request)
    result = call("list_alerts")
    assert not result.is_error
    assert result.structured_content == {"items": [added.model_dump(mode="json")]}
    assert "alert-secret" not in str(result.content)
