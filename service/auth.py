"""HTTP authentication: the bearer scheme and turning an Authorization header into a key.

The key logic itself (format, hashing, constant-time verification, scopes) lives in
``toolkit.apikeys`` because the CLI shares it; this module adds only what is HTTP:
RFC 6750 error codes, the per-key rate limit that follows authentication, the
per-client limit on failed attempts, and "key last used" stamps written in the
background (``service.keystamps``) so that authenticating never writes.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.state import ServiceState
from toolkit.apikeys import verify_api_key
from toolkit.errors import AuthenticationError
from toolkit.models import ApiKeyRecord

SCOPE_DESCRIPTIONS: dict[str, str] = {
    "summary.run": "period summaries (chat and channel) and source summaries",
    "search.read": "search the messages of a source",
    "sources.read": "read source metadata",
    "sources.write": "import and sync sources over HTTP",
    "schedule.read": "list digest schedules and alerts, read the schedules' Atom feeds",
    "schedule.write": "add, remove and run digest schedules and alerts",
}

bearer_scheme = HTTPBearer(
    auto_error=False,  # we raise our own 401 problem, with RFC 6750 error codes
    scheme_name="bearerAuth",
    bearerFormat="mlk_<id>_<secret>",
    description=(
        "An API key from `mlens keys create --scope ...`, sent as "
        "`Authorization: Bearer <key>`. Scopes: "
        + "; ".join(f"`{s}`: {d}" for s, d in sorted(SCOPE_DESCRIPTIONS.items()))
        + "."
    ),
)


def client_address(request: Request) -> str:
    """The address failed authentications are counted against."""
    return request.client.host if request.client is not None else "unknown"


def authenticate(
    request: Request,
    state: ServiceState,
    credentials: HTTPAuthorizationCredentials | None,
) -> ApiKeyRecord:
    """The key a request authenticates with; spends one of its rate-limit tokens.

    A client whose failed attempts have spent its bucket is refused before its key is
    even looked at; each failure spends one more token.

    Raises:
        AuthenticationError: no, malformed, unknown or revoked key (401).
        RateLimited: the key's bucket, or the client's failure bucket, is empty (429).
    """
    failures_key = f"auth-failures:{client_address(request)}"
    state.auth_failures.check(failures_key)
    try:
        record = _verify(request, state, credentials)
    except AuthenticationError:
        state.auth_failures.hit(failures_key)
        raise
    state.rate_limiter.hit(f"key:{record.id}")
    return record


def _verify(
    request: Request, state: ServiceState, credentials: HTTPAuthorizationCredentials | None
) -> ApiKeyRecord:
    if credentials is None:
        if request.headers.get("authorization"):
            raise AuthenticationError(
                "the Authorization header must read 'Bearer <API key>'", error="invalid_request"
            )
        raise AuthenticationError(
            "an API key is required: send 'Authorization: Bearer <key>'", error=None
        )
    store = state.workspace.store
    return verify_api_key(store, credentials.credentials, touch=state.key_stamps.submit)
