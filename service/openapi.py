"""The OpenAPI document, told the truth about errors: every non-2xx body is a problem.

FastAPI documents validation failures with its own ``HTTPValidationError`` schema; this
app answers them (and everything else that fails) as ``application/problem+json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from service.problems import PROBLEM_JSON, Problem

_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
# Answers every authenticated route can give, whatever the route itself declares.
_AUTH_RESPONSES = {
    "401": "Missing, malformed, unknown or revoked API key",
    "403": "The API key lacks the route's scope",
    "429": "The API key's rate limit, or the client's failed-authentication limit, is "
    "spent (see Retry-After)",
}


# Answers any route can give, from the middleware around every route.
_EDGE_RESPONSES = {
    "400": "The request's framing is malformed (a Content-Length that is no number)",
    "503": "The request passed its deadline, the server is stopping, or the store is unavailable",
}


def _patch(schema: dict[str, Any]) -> dict[str, Any]:
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(problem.pop("$defs", {}))
    components["Problem"] = problem
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            if operation.get("security"):
                for status, description in _AUTH_RESPONSES.items():
                    responses.setdefault(status, {"description": description})
            if "requestBody" in operation:
                responses.setdefault("413", {"description": "The request body is too large"})
            for status, description in _EDGE_RESPONSES.items():
                responses.setdefault(status, {"description": description})
            for status, response in responses.items():
                if not status.startswith("2"):
                    response["content"] = {PROBLEM_JSON: {"schema": _PROBLEM_REF}}
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return schema


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` declare problem+json errors and the Problem schema."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _patch(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
