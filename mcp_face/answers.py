"""What every tool shares: the source's argument type, and how it answers.

A tool answers a ``CallToolResult`` of its own making (``answer``): its model of
``toolkit.wire`` (the shapes every face answers) as structured content and as JSON
text, for clients that read only text; or, for an error of the toolkit's tree,
``is_error`` with one line of text (``tool_error``): the line the CLI prints after
``error:`` (``cli_line``) unless the server says otherwise.
"""

import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.context import ServerRequestContext
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from toolkit.errors import ToolkitError
from toolkit.limits import MAX_REF_CHARS

REF_HELP = (
    "The source: `@handle`, `handle`, a t.me link (`https://t.me/handle`, "
    "`t.me/c/<id>/<msg>`) or the `source_ref` list_sources prints (`c/<id>` for private ones)."
)
SourceRef = Annotated[str, Field(min_length=1, max_length=MAX_REF_CHARS, description=REF_HELP)]
ErrorText = Callable[[ToolkitError], str]
Refuse = Callable[[ServerRequestContext[Any, Any], str], str | None]
"""Why the request of a call may not run the named tool (``None``: it may)."""


def cli_line(exc: ToolkitError) -> str:
    """The message the CLI prints after ``error:`` for ``exc``."""
    return str(exc)


def answer(make: Callable[[], BaseModel], error_text: ErrorText = cli_line) -> CallToolResult:
    """Run ``make``: its model as structured content and JSON text, or a toolkit error as
    a tool error (``is_error``) reading ``error_text(exc)``; anything else propagates."""
    try:
        model = make()
    except ToolkitError as exc:
        return tool_error(error_text(exc))
    data = model.model_dump(mode="json")
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def tool_error(message: str) -> CallToolResult:
    """A tool error whose one text block is ``message``."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
