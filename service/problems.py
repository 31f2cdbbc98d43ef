"""Every non-2xx answer as RFC 9457 ``application/problem+json``, decided in one table.

``STATUS_BY_ERROR`` maps the ToolkitError tree to HTTP statuses; the most specific class
in an error's MRO wins. Decisions worth stating:

- ``InvalidRequest`` and ``ImportFormatError`` → 422 (the request's content is wrong);
  FastAPI's own validation errors take the same shape, one ``errors`` item per field.
- ``RateLimited`` (our per-key and failed-authentication limits) → 429 + ``Retry-After``;
  ``UpstreamRateLimited`` (a messenger FloodWait, an LLM endpoint's 429; the adapters
  raise it, nothing here re-translates) → 503 + ``Retry-After``: the client did nothing
  wrong, this server is out of upstream capacity for a while.
- ``Busy`` (every turn for summaries is taken, ``toolkit.turns``) → 503 + ``Retry-After``:
  the server is at capacity, and says when a turn is likely free.
- ``ConfigError`` → 503: the server is not configured for what was asked (live sync
  without credentials); nothing the client can change, and no retry time to promise.
- ``StoreError`` → 503 with a generic detail (its message names server paths); logged.
  ``StoreDamaged`` (a corrupted file) is not logged per request: the store logged it
  once, naming the file and how to recover it.
  ``StoreFull`` (no space left on the store's disk) → 507 Insufficient Storage, generic
  detail, logged.
- Any other exception becomes a 500 problem in ``service.middleware`` (logged, no trace);
  the middleware also answers 413 (body too large) and 503 (deadline passed, stopping).
- Problems quote client input; ``ProblemResponse`` writes any text (a lone surrogate
  becomes U+FFFD), so an answer about bad input can always be sent.
"""

from __future__ import annotations

import http
import json
import logging
import math
import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from toolkit.errors import (
    AuthenticationError,
    Busy,
    ConfigError,
    DeadlineExceeded,
    ImportFormatError,
    InvalidRequest,
    NotFound,
    PermissionDenied,
    RateLimited,
    StoreDamaged,
    StoreError,
    StoreFull,
    ToolkitError,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
)

log = logging.getLogger("service.problems")

PROBLEM_JSON = "application/problem+json"
_SURROGATE = re.compile("[\ud800-\udfff]")
TYPE_BASE = "urn:message-lens:problem:"
REALM = "message-lens"

STATUS_BY_ERROR: dict[type[ToolkitError], int] = {
    InvalidRequest: 422,
    ImportFormatError: 422,
    NotFound: 404,
    AuthenticationError: 401,
    PermissionDenied: 403,
    RateLimited: 429,
    UpstreamRateLimited: 503,
    UpstreamTimeout: 504,
    UpstreamError: 502,
    ConfigError: 503,
    Busy: 503,
    DeadlineExceeded: 503,
    StoreFull: 507,
    StoreError: 503,
    ToolkitError: 500,
}


class FieldProblem(BaseModel):
    """One failing input: where it was, which field, and what is wrong with it."""

    field: str = Field(
        description="Dotted path of the field, e.g. `limit`; `body` for the body as a whole."
    )
    location: str | None = Field(None, description="`body`, `query`, `header` …, when known.")
    message: str
    type: str = Field(description="Machine-readable kind of failure, e.g. `less_than_equal`.")


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str = Field(description="URI naming the kind of problem (`about:blank`: see status).")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = Field(None, description="The request path that failed.")
    errors: list[FieldProblem] | None = Field(None, description="Failing fields (422 only).")


class ProblemResponse(JSONResponse):
    """A JSON response that can always be written.

    A problem may quote what the client sent; text that UTF-8 cannot carry (a lone
    surrogate from a JSON ``\\udcff`` escape) becomes U+FFFD instead of failing the answer.
    """

    def render(self, content: Any) -> bytes:
        """Serialise ``content`` as compact UTF-8 JSON, replacing unencodable characters."""
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")


def problem_response(
    request: Request | None,
    status: int,
    *,
    detail: str | None = None,
    title: str | None = None,
    type_: str = "about:blank",
    errors: list[FieldProblem] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """Build an ``application/problem+json`` response."""
    problem = Problem(
        type=type_,
        title=title or http.HTTPStatus(status).phrase,
        status=status,
        detail=detail,
        instance=request.url.path if request is not None else None,
        errors=errors,
    )
    return ProblemResponse(
        problem.model_dump(exclude_none=True),
        status_code=status,
        headers=headers,
        media_type=PROBLEM_JSON,
    )


def status_for(exc: ToolkitError) -> int:
    """The HTTP status of a toolkit error: the table entry of its nearest class."""
    for cls in type(exc).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 500


def retry_after_header(seconds: float) -> str:
    """``Retry-After`` as whole seconds, rounded up and at least 1."""
    return str(max(1, math.ceil(seconds)))


def _slug(cls: type[ToolkitError]) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", cls.__name__).lower()


def _headers(exc: ToolkitError) -> dict[str, str]:
    if isinstance(exc, RateLimited | UpstreamRateLimited | Busy):
        return {"Retry-After": retry_after_header(exc.retry_after)}
    if isinstance(exc, AuthenticationError):
        challenge = f'Bearer realm="{REALM}"'
        if exc.error:
            description = exc.message.replace('"', "'")
            challenge += f', error="{exc.error}", error_description="{description}"'
        return {"WWW-Authenticate": challenge}
    if isinstance(exc, PermissionDenied):
        return {
            "WWW-Authenticate": (
                f'Bearer realm="{REALM}", error="insufficient_scope", scope="{exc.scope}"'
            )
        }
    return {}


async def toolkit_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Map a ``ToolkitError`` through ``STATUS_BY_ERROR``."""
    assert isinstance(exc, ToolkitError)
    status = status_for(exc)
    detail = exc.message
    if isinstance(exc, StoreDamaged):  # the store logged it once, with the recovery step
        detail = "The message store's file is damaged; the service log says how to recover it."
    elif isinstance(exc, StoreError):
        log.error("store error on %s %s: %s", request.method, request.url.path, exc)
        detail = (
            "The server's disk is full; nothing was changed."
            if isinstance(exc, StoreFull)
            else "The message store is unavailable; try again later."
        )
    elif status >= 500:
        log.warning("%s on %s %s: %s", type(exc).__name__, request.method, request.url.path, exc)
    errors = None
    if isinstance(exc, InvalidRequest):
        errors = [
            FieldProblem(field=exc.field or "request", message=exc.message, type=_slug(type(exc)))
        ]
    return problem_response(
        request,
        status,
        detail=detail,
        title=exc.title,
        type_=TYPE_BASE + _slug(type(exc)),
        errors=errors,
        headers=_headers(exc),
    )


_LOCATIONS = {"body", "query", "path", "header", "cookie"}


def _field_problem(error: dict[str, Any]) -> FieldProblem:
    loc = list(error.get("loc", ()))
    location = str(loc.pop(0)) if loc and loc[0] in _LOCATIONS else None
    if error.get("type") == "json_invalid":
        loc = []  # the "field" would be a character offset into the body
    field = ""
    for part in loc:
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    message = str(error.get("msg", "invalid value"))
    if error.get("type") == "json_invalid" and isinstance(error.get("ctx"), dict):
        message = f"{message}: {error['ctx'].get('error', '')}".rstrip(": ")
    # An error about the body (or query) as a whole names that place as its field.
    return FieldProblem(
        field=field or location or "request",
        location=location,
        message=message,
        type=str(error.get("type")),
    )


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's request validation errors as a 422 problem naming each failing field."""
    assert isinstance(exc, RequestValidationError)
    errors = [_field_problem(e) for e in exc.errors()]
    names = ", ".join(dict.fromkeys(e.field for e in errors))
    return problem_response(
        request,
        422,
        detail=f"invalid input: {names}",
        title=InvalidRequest.title,
        type_=TYPE_BASE + _slug(InvalidRequest),
        errors=errors,
    )


async def http_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Starlette/FastAPI ``HTTPException`` (404 route, 405 method …), headers kept."""
    assert isinstance(exc, StarletteHTTPException)
    phrase = http.HTTPStatus(exc.status_code).phrase
    detail = exc.detail if isinstance(exc.detail, str) and exc.detail != phrase else None
    if detail is None and exc.status_code == 405:
        detail = f"{request.method} is not allowed here"
    elif detail is None and exc.status_code == 404:
        detail = f"no route {request.url.path}"
    headers = dict(exc.headers) if exc.headers else None
    if exc.status_code == 405 and headers is not None and "Allow" in headers:
        headers["Allow"] = _allowed(request) or headers["Allow"]
    return problem_response(request, exc.status_code, detail=detail, headers=headers)


def _allowed(request: Request) -> str:
    """Every method some route of the path takes (Starlette names only the first route's:
    ``GET`` and ``POST`` on one path are two routes)."""
    from starlette.routing import Match

    methods: set[str] = set()
    routes = list(request.app.router.routes)
    while routes:
        route = routes.pop()
        # An included router (FastAPI wraps ``include_router``'s) holds its routes inside.
        inner = getattr(route, "original_router", None)
        if inner is not None:
            routes.extend(inner.routes)
            continue
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries declaring problem+json bodies for ``statuses``."""
    content = {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    return {s: {"description": http.HTTPStatus(s).phrase, "content": content} for s in statuses}
