"""The auth matrix on every protected route, RFC 6750 challenges, and the OpenAPI scheme."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from service.routing import GuardedRoute
from service.state import state_of
from toolkit.apikeys import SCOPES, create_api_key, revoke_api_key
from toolkit.store.base import MessageStore

PROBLEM = "application/problem+json"
Send = Callable[..., Any]
Route = tuple[str, str, str, Any]
"""(method, path, scope, example) of a protected route."""
Routes = list[Route]


def test_every_authenticated_route_is_in_the_matrix(
    client: TestClient, protected_routes: Routes
) -> None:
    # The OpenAPI document lists exactly the operations whose dependencies include the
    # bearer scheme, whatever FastAPI's internal route layout.
    paths = client.get("/openapi.json").json()["paths"]
    operations = {
        (method.upper(), path): operation
        for path, methods in paths.items()
        for method, operation in methods.items()
    }
    secured = {key for key, operation in operations.items() if operation.get("security")}
    registered = {(method, path) for method, path, _, _ in protected_routes}
    assert secured == registered
    assert {key for key in operations if key[1].startswith("/v1/")} == secured


Knock = Callable[[str | None], Any]


@pytest.fixture
def knock(client: TestClient, send: Send, sources: Any, protected_route: Route) -> Knock:
    """``knock(token)``: the protected route's example request with that bearer token
    (``None``: no ``Authorization`` header at all)."""
    method, path, _, example = protected_route

    def knock_with(token: str | None) -> Any:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return send(client, method, path, example, headers=headers)

    return knock_with


def test_no_key_is_401_with_a_bare_challenge(knock: Knock) -> None:
    response = knock(None)
    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    # RFC 6750 §3.1: no error code when the request carried no credentials at all.
    assert response.headers["www-authenticate"] == 'Bearer realm="message-lens"'
    assert response.json()["status"] == 401


@pytest.mark.parametrize(
    "token",
    [
        "not-a-key",
        "mlk_00000000_" + "A" * 43,  # well-formed, unknown prefix
    ],
    ids=["malformed", "unknown"],
)
def test_bad_key_is_401_invalid_token(knock: Knock, token: str) -> None:
    response = knock(token)
    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


def test_right_prefix_wrong_secret_is_401(
    knock: Knock, make_key: Callable[..., str], protected_route: Route
) -> None:
    good = make_key(protected_route[2])
    forged = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    assert knock(forged).status_code == 401


def test_revoked_key_is_401(knock: Knock, store: MessageStore, protected_route: Route) -> None:
    token, record = create_api_key(store, name="soon revoked", scopes={protected_route[2]})
    revoke_api_key(store, record.prefix)
    response = knock(token)
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert "revoked" in response.json()["detail"]


def test_key_without_the_scope_is_403(
    knock: Knock, make_key: Callable[..., str], protected_route: Route
) -> None:
    scope = protected_route[2]
    response = knock(make_key(*sorted(SCOPES - {scope})))
    assert response.status_code == 403
    assert response.headers["content-type"] == PROBLEM
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert f'scope="{scope}"' in challenge
    assert scope in response.json()["detail"]


@pytest.mark.slow
def test_key_with_the_scope_is_admitted(
    knock: Knock, make_key: Callable[..., str], protected_route: Route
) -> None:
    response = knock(make_key(protected_route[2]))  # this scope only
    assert 200 <= response.status_code < 300, response.text


def test_other_schemes_are_401_invalid_request(client: TestClient, sources: Any) -> None:
    response = client.get(
        "/v1/sources/by-ref",
        params={"source_ref": "@lens_public"},
        headers={"Authorization": "Basic dXNlcjpwYXNz"},
    )
    assert response.status_code == 401
    assert 'error="invalid_request"' in response.headers["www-authenticate"]


def test_auth_comes_before_input_validation(client: TestClient) -> None:
    # An anonymous caller learns nothing about the inputs of a protected route.
    response = client.get("/v1/sources/by-ref", params={"source_ref": "+invite"})
    assert response.status_code == 401


def test_use_is_recorded_on_the_key(
    app: FastAPI, client: TestClient, store: MessageStore, sources: Any
) -> None:
    token, record = create_api_key(store, name="tracked", scopes={"sources.read"})
    assert record.last_used_at is None
    response = client.get(
        "/v1/sources/by-ref",
        params={"source_ref": "@lens_public"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200
    state_of(app).key_stamps.flush()  # written in the background, off the request path
    (stored,) = [r for r in store.list_api_keys() if r.id == record.id]
    assert stored.last_used_at is not None


def test_openapi_declares_the_bearer_scheme_on_protected_routes(
    client: TestClient, protected_routes: Routes
) -> None:
    schema = client.get("/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["type"] == "http"
    assert schemes["bearerAuth"]["scheme"] == "bearer"
    for method, path, scope, _ in protected_routes:
        operation = schema["paths"][path][method.lower()]
        assert operation["security"] == [{"bearerAuth": [scope]}]
        for status in ("401", "403", "422", "429"):
            assert PROBLEM in operation["responses"][status]["content"]
    assert "security" not in schema["paths"]["/healthz"]["get"]
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert {"Problem", "FieldProblem"} <= set(schema["components"]["schemas"])


def test_every_route_authenticates_before_it_reads_the_body(
    app: FastAPI, protected_routes: Routes
) -> None:
    # FastAPI keeps an included router's routes on that router.
    found = [getattr(getattr(r, "original_router", None), "routes", [r]) for r in app.routes]
    routes = [r for group in found for r in group if isinstance(r, APIRoute)]
    assert {r.path for r in routes} >= {path for _, path, _, _ in protected_routes}
    assert all(isinstance(r, GuardedRoute) for r in routes), [r.path for r in routes]
