"""HTTP authentication: the bearer scheme and turning an Authorization header into a key.

The key logic itself (format, hashing, constant-time verification, scopes) lives in
``toolkit.apikeys`` because the CLI shares it; this module adds only what is HTTP:
RFC 6750 error codes and the per-key rate limit that follows authentication.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.ratelimit import RateLimiter
from toolkit.apikeys import verify_api_key
from toolkit.errors import AuthenticationError
from toolkit.models import ApiKeyRecord
from toolkit.store.base import MessageStore

SCOPE_DESCRIPTIONS: dict[str, str] = {
    "summary.run": "period summaries (chat and channel) and source summaries",
    "search.read": "search the messages of a source",
    "sources.read": "read source metadata",
    "sources.write": "import and sync sources over HTTP",
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


def authenticate(
    request: Request,
    store: MessageStore,
    credentials: HTTPAuthorizationCredentials | None,
    limiter: RateLimiter,
) -> ApiKeyRecord:
    """The key a request authenticates with; spends one of its rate-limit tokens.

    Raises:
        AuthenticationError: no, malformed, unknown or revoked key (401).
        RateLimited: the key's bucket is empty (429).
    """
    if credentials is None:
        if request.headers.get("authorization"):
            raise AuthenticationError(
                "the Authorization header must read 'Bearer <API key>'", error="invalid_request"
            )
        raise AuthenticationError(
            "an API key is required: send 'Authorization: Bearer <key>'", error=None
        )
    record = verify_api_key(store, credentials.credentials)
    limiter.hit(f"key:{record.id}")
    return record
