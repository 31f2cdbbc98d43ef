"""``GuardedRoute``: authenticate first, then make sure the body is JSON worth parsing.

FastAPI parses a request's JSON body before it runs any dependency, so a malformed body
would be answered 422 before an absent key is answered 401, and a body FastAPI cannot
decode (invalid UTF-8, nesting deeper than the parser's recursion limit) would be an
undeclared 400. Every router of the service uses this route class, which, before
FastAPI's own handling:

1. authenticates the request when the route needs a key (401/429 come first);
2. refuses, as 422 problems naming the ``body`` (or the field), a body that is not
   UTF-8, JSON nested deeper than ``MAX_JSON_DEPTH``, numbers Python will not convert
   (over 4,300 digits), or strings UTF-8 cannot carry (lone surrogates from
   ``\\udcff`` escapes: they could not be stored or answered).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from fastapi import Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from service.auth import authenticate, bearer_scheme
from service.deps import get_principal
from service.state import state_of

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects a request body may have."""

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def needs_key(dependant: Dependant) -> bool:
    """Whether a route's dependencies include the authenticated principal."""
    return any(d.call is get_principal for d in _walk(dependant))


def _walk(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from _walk(sub)


def _invalid(loc: tuple[str | int, ...], kind: str, message: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body", *loc), "msg": message}])


def _check_value(value: Any) -> None:
    """Refuse nesting deeper than ``MAX_JSON_DEPTH`` and lone surrogates, iteratively."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_JSON_DEPTH:
            raise _invalid((), "json_too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, str):
            _check_text(item, path)
        elif isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, path)
                stack.append((child, (*path, key)))
        elif isinstance(item, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(item))


def _check_text(text: str, path: tuple[str | int, ...]) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _invalid(
            path,
            "string_unicode",
            f"the text holds a lone surrogate ({text[exc.start]!a}), which is no character",
        ) from None


def check_json_body(body: bytes) -> None:
    """Raise a 422 ``RequestValidationError`` for a body FastAPI could not handle well.

    A body that is simply not JSON is left to FastAPI, which answers its own 422.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid((), "json_invalid", f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise _invalid(
            (), "json_too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
        ) from None
    except json.JSONDecodeError:
        return  # FastAPI answers it: a 422 ``json_invalid`` naming the place
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise _invalid((), "json_invalid", f"the body cannot be read: {exc}") from None
    _check_value(value)


def _is_json(request: Request) -> bool:
    content_type = request.headers.get("content-type", "")
    return not content_type or "json" in content_type.lower()


class GuardedRoute(APIRoute):
    """An ``APIRoute`` that authenticates before the body is read and vets JSON bodies."""

    def get_route_handler(self) -> Handler:
        """FastAPI's handler, behind authentication and the body checks."""
        handler: Handler = super().get_route_handler()
        authenticated = needs_key(self.dependant)
        has_body = self.body_field is not None

        async def guarded(request: Request) -> Response:
            if authenticated:
                credentials = await bearer_scheme(request)
                state = state_of(request.app)
                request.state.principal = await run_in_threadpool(
                    authenticate, request, state, credentials
                )
            if has_body and _is_json(request):
                body = await request.body()
                if body:
                    check_json_body(body)
            return await handler(request)

        return guarded
