"""Schemathesis over the whole published OpenAPI, through the ASGI transport.

Every operation gets a bounded number of generated requests, valid and invalid, sent with
a key that holds every scope. Fails on any 5xx, any response off the schema (status,
content type, body), and any non-2xx that is not ``application/problem+json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis import Case, CheckContext, GenerationMode, Response
from schemathesis.specs.openapi.checks import (
    ignored_auth,
    negative_data_rejection,
    positive_data_acceptance,
)

from service.app import create_app
from service.problems import PROBLEM_JSON
from toolkit.config import Settings

MAX_EXAMPLES = 30

pytestmark = pytest.mark.slow


@pytest.fixture
def app_state(embedder: Any) -> dict[str, Any]:
    """Share the session's embedder instead of loading one per app."""
    return {"embedder": embedder}


def _published_schema() -> Any:
    # The document does not depend on the store: take it from a throwaway app, and send
    # each case to the test's own app (``app=``), through the ASGI transport.
    document = create_app(Settings(_env_file=None, database={"path": ":memory:"})).openapi()  # type: ignore[call-arg]
    loaded = schemathesis.openapi.from_dict(document)
    loaded.config.generation.update(
        modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        max_examples=MAX_EXAMPLES,
        deterministic=True,
    )
    return loaded


schema = _published_schema()


@schemathesis.check
def problem_json_on_errors(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """Every non-2xx answer is an RFC 9457 problem document."""
    if response.status_code < 300:
        return None
    content_type = response.headers.get("content-type", [""])[0]
    assert content_type.startswith(PROBLEM_JSON), (
        f"{response.status_code} answered with {content_type!r}, not {PROBLEM_JSON}"
    )
    body = response.json()
    assert body["status"] == response.status_code
    return None


@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
def test_api(case: Case, app: FastAPI, sources: Any, auth: Callable[..., dict[str, str]]) -> None:
    case.call_and_validate(
        app=app,
        headers=auth(),
        additional_checks=[problem_json_on_errors],
        # JSON Schema cannot say everything the API checks (a ref's grammar, that a
        # period ends after it starts), so a schema-valid request may rightly get a 422.
        # Its probe without a key goes through the requests transport, not the ASGI app
        # (a TypeError whenever an operation answers 2xx to a bare generated body, as
        # /v1/search/all does); keys and scopes are checked per route in test_auth.
        excluded_checks=[positive_data_acceptance, ignored_auth],
    )


@schema.include(path_regex="^/v1/").parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
def test_api_without_a_key_answers_401_whatever_the_body(
    case: Case, app: FastAPI, sources: Any
) -> None:
    response = case.call_and_validate(
        app=app,
        additional_checks=[problem_json_on_errors],
        excluded_checks=[positive_data_acceptance, negative_data_rejection],
    )
    # Authentication comes before the body is parsed: nothing about the input leaks.
    # (Negative cases also try other methods on the path: those are 405, route-level.)
    wrong_method = case.method.upper() != case.operation.method.upper()
    assert response.status_code == (405 if wrong_method else 401), response.text
