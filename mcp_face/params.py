"""The tools' parameters: each defined once, with its bounds and a description that
states the defaults in force (``Settings``) and the summary languages.

A tool lists its parameters by name (``SEARCH_OPTIONS`` and ``FILTERS`` are the runs
several tools share); ``tool_function`` gives a tool's one body the signature the SDK
reads its input schema from. (No ``from __future__ import annotations`` here: the
annotations are objects made from the settings, carried into that signature.)
"""

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from mcp_face.answers import Senders, SourceRef, TopicId
from toolkit.config import Settings
from toolkit.requests import MAX_LIMIT, MAX_QUERY_CHARS, MAX_SCAN, MAX_SOURCE_MESSAGES

MAX_SOURCE_REFS = 1000
"""Most sources one search_all call may name (as ``POST /v1/search/all``)."""

FILTERS = ("topic_id", "sender_peer_ids")
"""The filters every search and summary tool takes, last but for ``explain``."""
SEARCH_OPTIONS = ("limit", "scan_messages_limit", "period_from", "period_to", *FILTERS, "explain")
"""The parameters both search tools take after their query and sources."""

_EMPTY = inspect.Parameter.empty


def parameters(cfg: Settings, languages: str) -> dict[str, inspect.Parameter]:
    """Every tool parameter by name: its type, bounds, description and default.

    Args:
        cfg: the settings whose defaults the descriptions state.
        languages: what the summary engine can write (a sentence for the descriptions).
    """
    table: dict[str, tuple[Any, Any]] = {
        "source_ref": (SourceRef, _EMPTY),
        "query": (
            Annotated[
                str,
                Field(
                    min_length=1,
                    max_length=MAX_QUERY_CHARS,
                    description=f"What to look for: 1..{MAX_QUERY_CHARS} characters, not blank; "
                    "any language.",
                ),
            ],
            _EMPTY,
        ),
        "source_refs": (
            Annotated[
                list[str] | None,
                Field(
                    min_length=1,
                    max_length=MAX_SOURCE_REFS,
                    description="Search only these sources (refs as for search_messages); "
                    "default: every stored source.",
                ),
            ],
            None,
        ),
        "limit": (
            Annotated[
                int | None,
                Field(
                    ge=1,
                    le=MAX_LIMIT,
                    description=f"Hits to return (1..{MAX_LIMIT}); "
                    f"default {cfg.search.default_limit}.",
                ),
            ],
            None,
        ),
        "scan_messages_limit": (
            Annotated[
                int | None,
                Field(
                    ge=1,
                    le=MAX_SCAN,
                    description=f"Most recent messages to scan in a source (1..{MAX_SCAN}); "
                    f"default {cfg.search.default_scan_messages_limit}. "
                    "Older messages are not searched.",
                ),
            ],
            None,
        ),
        "period_from": (
            Annotated[
                str | None,
                Field(
                    description="Scan only messages posted from here: ISO 8601 date or datetime."
                ),
            ],
            None,
        ),
        "period_to": (
            Annotated[
                str | None,
                Field(
                    description="... up to here (inclusive; a bare date includes the whole day)."
                ),
            ],
            None,
        ),
        "topic_id": (TopicId, None),
        "sender_peer_ids": (Senders, None),
        "explain": (Annotated[bool, Field(description="Add each hit's four signals.")], False),
        "started_at": (
            Annotated[
                str,
                Field(description="Start of the period (inclusive): ISO 8601 date or datetime."),
            ],
            _EMPTY,
        ),
        "ended_at": (
            Annotated[
                str,
                Field(
                    description="End of the period: a datetime is the first moment left out; a "
                    "bare date includes that whole day."
                ),
            ],
            _EMPTY,
        ),
        "language": (
            Annotated[
                str, Field(description=f"ISO 639-1 code of the summary's language. {languages}")
            ],
            "en",
        ),
        "kind": (
            Annotated[
                Literal["chat", "channel"] | None,
                Field(description="Prompt variant; default: the source's own kind."),
            ],
            None,
        ),
        "messages_limit": (
            Annotated[
                int | None,
                Field(
                    ge=1,
                    le=MAX_SOURCE_MESSAGES,
                    description=f"Messages to read at most (1..{MAX_SOURCE_MESSAGES}), spread over "
                    "the source's whole life; default "
                    f"{cfg.summary.source_messages}.",
                ),
            ],
            None,
        ),
    }
    return {
        name: inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
        )
        for name, (annotation, default) in table.items()
    }


def tool_function(
    name: str,
    params: Sequence[inspect.Parameter],
    out: type[BaseModel],
    body: Callable[..., CallToolResult],
) -> Callable[..., CallToolResult]:
    """A tool's function: ``body(ctx, **arguments)`` under the signature of ``params``.

    The SDK reads the input schema from that signature (and finds the ``Context``
    parameter through the annotations); the output schema is ``out``'s.

    Args:
        name: the tool's name (the function's name too).
        params: its parameters, in the order the schema lists them.
        out: the model its structured content follows.
        body: what a call runs, given the request's context and the arguments by name.
    """

    def fn(ctx: Context, **arguments: Any) -> CallToolResult:
        return body(ctx, **arguments)

    returns = Annotated[CallToolResult, out]
    context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)
    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [context, *params], return_annotation=returns
    )
    fn.__annotations__ = {
        "ctx": Context,
        **{p.name: p.annotation for p in params},
        "return": returns,
    }
    fn.__name__ = fn.__qualname__ = name
    return fn
