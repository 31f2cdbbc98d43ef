"""API keys: creation, verification and scopes (DESIGN.md §3, "Credentials").

A key reads ``mlk_<id>_<secret>``: ``mlk_<id>`` is the public *prefix* (8 random hex
characters after ``mlk_``) by which people name the key, and ``<secret>`` carries
256 random bits. The full key is shown once, when it is created; the store keeps only
the prefix and the SHA-256 of the whole key, so a leaked database reveals no key.
Verification hashes the presented key, finds the key by that hash (the ``key_hash``
column, unique since the first schema: no migration needed) and compares digests in
constant time; the prefix only names a key to people (list, revoke).

The CLI (``mlens keys``) and the service both use this module; it knows nothing of HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.errors import (
    ApiKeyNotFound,
    AuthenticationError,
    InvalidRequest,
    PermissionDenied,
    StoreError,
    quoted,
)

# The store is only named in signatures here: importing it would load numpy and the
# SQLite store for ``mlens --help``.
if TYPE_CHECKING:
    from toolkit.models import ApiKeyRecord
    from toolkit.store.base import KeyStore

SCOPES: frozenset[str] = frozenset(
    {
        "summary.run",
        "search.read",
        "sources.read",
        "sources.write",
        "schedule.read",
        "schedule.write",
    }
)
"""Every scope a key may carry (DESIGN.md §3, "Scopes")."""

KEY_PREFIX = "mlk"
_KEY_RE = re.compile(r"^(mlk_[0-9a-f]{8})_([A-Za-z0-9_-]{32,128})$")
_PREFIX_RE = re.compile(r"^mlk_[0-9a-f]{8}$")
_MAX_NAME = 100
MAX_KEY_ID = 2**63 - 1
"""The largest id a key can have (a signed 64-bit integer, in SQLite and PostgreSQL)."""
# last_used_at is bookkeeping, not an audit log: write it at most once a minute per key
# so that a busy key does not turn every request into a write transaction.
_TOUCH_INTERVAL = timedelta(minutes=1)
# A digest of nothing any key can hash to, compared when the prefix is unknown so that
# "no such prefix" and "wrong secret" take the same path.
# (hash_key("no key has this digest"): written out, as hashlib is imported only to hash.)
_NO_KEY_DIGEST = "43afda7e72d711959c1a72c8451ec3394f8d009b44a0f56a5aca2622966cc3fe"


def hash_key(token: str) -> str:
    """The SHA-256 hex digest stored for a key."""
    # hashlib, hmac and secrets are imported where used: OpenSSL's library is not for
    # ``mlens --help``, which imports this module for the scopes.
    import hashlib

    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def key_prefix(token: str) -> str | None:
    """The public prefix (``mlk_xxxxxxxx``) of a well-formed key, or ``None``."""
    match = _KEY_RE.match(token)
    return match.group(1) if match else None


def validate_scopes(scopes: Iterable[str]) -> frozenset[str]:
    """Check scope names against ``SCOPES``.

    Raises:
        InvalidRequest: (field ``scopes``) for an unknown scope or an empty set.
    """
    wanted = frozenset(s.strip() for s in scopes)
    unknown = sorted(wanted - SCOPES)
    if unknown:
        raise InvalidRequest(
            f"unknown scope {', '.join(map(repr, unknown))}; known scopes: "
            f"{', '.join(sorted(SCOPES))}",
            field="scopes",
        )
    if not wanted:
        raise InvalidRequest("a key needs at least one scope", field="scopes")
    return wanted


def create_api_key(
    store: KeyStore, *, name: str, scopes: Iterable[str]
) -> tuple[str, ApiKeyRecord]:
    """Create a key with ``scopes``; return the key (shown once) and its stored record.

    Raises:
        InvalidRequest: for an unknown scope, no scope, or a blank or overlong name.
    """
    import secrets

    from toolkit.models import NewApiKey  # not for ``mlens --help``, which reads the scopes

    checked = validate_scopes(scopes)
    name = name.strip()
    if not name or len(name) > _MAX_NAME:
        raise InvalidRequest(f"a key name has 1 to {_MAX_NAME} characters", field="name")
    # The prefix space is 2**32: a collision is rare but possible, so draw again on one.
    for _ in range(5):
        prefix = f"{KEY_PREFIX}_{secrets.token_hex(4)}"
        if store.api_key_by_prefix(prefix) is None:
            break
    else:
        raise StoreError("could not find a free key prefix after 5 draws")
    token = f"{prefix}_{secrets.token_urlsafe(32)}"
    record = store.add_api_key(
        NewApiKey(name=name, prefix=prefix, key_hash=hash_key(token), scopes=checked)
    )
    return token, record


def verify_api_key(
    store: KeyStore,
    token: str,
    *,
    now: datetime | None = None,
    touch: Callable[[int, datetime], None] | None = None,
) -> ApiKeyRecord:
    """The record of the active key ``token``; records its use (at most once a minute).

    ``touch(key_id, when)`` records the use; by default ``store.touch_api_key``, a write
    in the caller's thread. The service passes a background writer instead, so that
    authenticating never waits for the store's write lock.

    Raises:
        AuthenticationError: for a malformed, unknown or revoked key.
    """
    # Looked up by the hash of the whole key (a unique index), never by its readable
    # prefix: how long the look-up takes says nothing about any part of a real key. The
    # digests are compared again in constant time, and a malformed key costs the same
    # look-up as any other.
    import hmac

    digest = hash_key(token)
    found = store.api_key_by_hash(digest)
    stored = found[1] if found else _NO_KEY_DIGEST
    if not hmac.compare_digest(digest, stored) or found is None or key_prefix(token) is None:
        raise AuthenticationError("the API key is not valid")
    record = found[0]
    if not record.active:
        raise AuthenticationError("the API key has been revoked")
    now = now or datetime.now(UTC)
    if record.last_used_at is None or now - record.last_used_at >= _TOUCH_INTERVAL:
        (touch or store.touch_api_key)(record.id, now)
    return record


def check_scope(record: ApiKeyRecord, scope: str) -> None:
    """Raise ``PermissionDenied`` unless the key carries ``scope``."""
    if scope not in record.scopes:
        raise PermissionDenied(f"this API key lacks the scope {scope!r}", scope=scope)


def list_api_keys(store: KeyStore) -> list[ApiKeyRecord]:
    """Every key, revoked ones included, oldest first."""
    return store.list_api_keys()


def revoke_api_key(store: KeyStore, id_or_prefix: str) -> ApiKeyRecord:
    """Revoke a key named by its numeric id, its prefix, or the full key itself.

    Raises:
        ApiKeyNotFound: when no key matches.
        InvalidRequest: for text that is none of those forms.
    """
    value = id_or_prefix.strip()
    value = key_prefix(value) or value
    digits = value.isascii() and value.isdigit()  # "²" and "٣" are digits to isdigit
    if not (digits or _PREFIX_RE.match(value)):
        raise InvalidRequest(
            f"{quoted(id_or_prefix)} is neither a key id nor a key prefix (mlk_xxxxxxxx)",
            field="key",
        )
    if digits and int(value) > MAX_KEY_ID:  # no store holds it, and none can take it
        raise ApiKeyNotFound(f"no API key {quoted(value)}")
    return store.revoke_api_key(value)


def ensure_dev_key(store: KeyStore, path: Path) -> str:
    """A development key with every scope, created once and kept in ``path`` (mode 0600).

    Later calls return the kept key while it is still valid in ``store``; a revoked,
    unknown (the store was replaced) or narrowed key is replaced by a new one. The
    folder is checked first (``guard_data_dir``: others may not write it), and the file
    is read and written without following links (``toolkit.store.folder``).

    Raises:
        ConfigError: the folder is others' to write, or the file cannot be written.
    """
    from toolkit.store.folder import guard_data_dir, read_private, write_private

    guard_data_dir(path.parent)
    token = (read_private(path) or "").strip()
    if token:
        try:
            record = verify_api_key(store, token)
        except AuthenticationError:
            pass
        else:
            if record.scopes >= SCOPES:
                return token
    token, _ = create_api_key(store, name="development", scopes=SCOPES)
    write_private(path, token + "\n")
    return token
