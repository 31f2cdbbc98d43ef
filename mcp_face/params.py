"""The tools' parameters: each defined once, with its bounds and a description that
states the defaults in force (``Settings``) and the summary languages.

The bounds are the request models' (``toolkit.requests``, the /v1 bodies), read from
their JSON schema (``bounds``), so a tool takes what the service takes. A tool lists its
parameters by name (``SEARCH_OPTIONS`` and ``FILTERS`` are the runs
several tools share); ``tool_function`` gives a tool's one body the signature the SDK
reads its input schema from. (No ``from __future__ import annotations`` here: the
annotations are objects made from the settings, carried into that signature.)
"""

import inspect
from collections.abc import Callable, Sequence
from functools import cache
from typing import Annotated, Any, Literal, TypedDict, cast

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from mcp_face.answers import SourceRef
from toolkit.config import Settings
from toolkit.requests import SearchAllRequest, SearchRequest, SourceSummaryRequest

FILTERS = ("topic_id", "sender_peer_ids")
"""The filters every search and summary tool takes, last but for ``explain``."""
SEARCH_OPTIONS = ("limit", "scan_messages_limit", "period_from", "period_to", *FILTERS, "explain")
"""The parameters both search tools take after their query and sources."""

_EMPTY = inspect.Parameter.empty
_KEYWORDS = {
    "minimum": "ge",
    "maximum": "le",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
}
"""JSON schema's words for a bound, and ``Field``'s."""


class Bounds(TypedDict, total=False):
    """A field's bounds, as ``Field`` takes them."""

    ge: int
    le: int
    min_length: int
    max_length: int


@cache
def bounds(model: type[BaseModel], name: str) -> Bounds:
    """The bounds of ``model``'s field ``name`` as ``Field`` keywords (``ge``, ``le``,
    ``min_length``, ``max_length``), read from the model's JSON schema (the one /v1
    publishes); the ``null`` of an optional field is passed over."""
    field = model.model_json_schema()["properties"][name]
    found: dict[str, int] = {}
    for arm in field.get("anyOf", [field]):
        found |= {word: arm[key] for key, word in _KEYWORDS.items() if key in arm}
    return cast(Bounds, found)


def parameters(cfg: Settings, languages: str) -> dict[str, inspect.Parameter]:
    """Every tool parameter by name: its type, bounds, description and default.

    Args:
        cfg: the settings whose defaults the descriptions state.
        languages: what the summary engine can write (a sentence for the descriptions).
    """
    query, refs = bounds(SearchRequest, "query"), bounds(SearchAllRequest, "source_refs")
    limit, scan = bounds(SearchRequest, "limit"), bounds(SearchRequest, "scan_messages_limit")
    sample = bounds(SourceSummaryRequest, "messages_limit")
    senders = bounds(SearchRequest, "sender_peer_ids")
    table: dict[str, tuple[Any, Any]] = {
        "source_ref": (SourceRef, _EMPTY),
        "query": (
            Annotated[
                str,
                Field(
                    **query,
                    description=f"What to look for: {query['min_length']}..{query['max_length']} "
                    "characters, not blank; any language.",
                ),
            ],
            _EMPTY,
        ),
        "source_refs": (
            Annotated[
                list[str] | None,
                Field(
                    **refs,
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
                    **limit,
                    description=f"Hits to return ({limit['ge']}..{limit['le']}); "
                    f"default {cfg.search.default_limit}.",
                ),
            ],
            None,
        ),
        "scan_messages_limit": (
            Annotated[
                int | None,
                Field(
                    **scan,
                    description="Most recent messages to scan in a source "
                    f"({scan['ge']}..{scan['le']}); "
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
        "topic_id": (
            Annotated[
                int | None,
                Field(
                    **bounds(SearchRequest, "topic_id"),
                    description="Only this forum topic (list_topics; General is 1).",
                ),
            ],
            None,
        ),
        "sender_peer_ids": (
            Annotated[
                list[str] | None,
                Field(
                    **senders,
                    description="Only these senders' messages (`user123`, `channel123`; at "
                    f"most {senders['max_length']}).",
                ),
            ],
            None,
        ),
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
                    **sample,
                    description=f"Messages to read at most ({sample['ge']}..{sample['le']}), "
                    "spread over "
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
