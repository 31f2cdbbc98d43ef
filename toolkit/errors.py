"""The toolkit's one exception tree.

Every failure a user can cause has a class here; adapters (Telethon, openai,
SQLite, JSON parsing) translate third-party errors into these at the edge, and
the service maps them to RFC 9457 problems in one table (``service/problems.py``).

```
ToolkitError
├── ConfigError              settings that cannot work (missing credentials, bad weights file)
├── InvalidRequest           a request out of bounds or inconsistent (field-level details)
│   ├── InvalidSourceRef     a source reference that is no valid public or private source
│   ├── InvalidWeights       search weights that are negative, all zero or not finite
│   └── UnsupportedLanguage  a language that the chosen engine cannot write
├── NotFound                 something asked for by name does not exist
│   ├── SourceNotFound       no such source in the store (and no live fetcher)
│   ├── ApiKeyNotFound       no such API key (revoke/list by id)
│   ├── ScheduleNotFound     no such digest schedule
│   └── AlertNotFound        no such alert
├── ImportFormatError        an export file that is truncated or malformed (says where)
├── RateLimited              a rate limit, ours or upstream's (carries retry_after seconds)
├── UpstreamError            an upstream service (LLM, messenger) failed
│   ├── UpstreamTimeout      the upstream did not answer in time
│   ├── UpstreamInvalidOutput  the upstream answered, but not in the required shape
│   └── UpstreamRateLimited  the upstream refused for now (also a RateLimited: a FloodWait,
│                            an LLM endpoint's 429)
├── StoreError               the local store cannot be opened or written
│   ├── StoreDamaged         the store's file is corrupted (the log says how to recover it)
│   ├── StoreTimeout         the database did not answer in time (a frozen server)
│   └── StoreFull            no space left on the disk of the store or its temporary files
├── DeadlineExceeded         the work passed the deadline its caller set (toolkit.deadline)
├── Busy                     every turn for such work is taken (toolkit.turns); retry_after
├── AuthenticationError      a missing, malformed, unknown or revoked API key
└── PermissionDenied         a valid API key without the scope a request needs
```
"""

from __future__ import annotations

import errno
from typing import Any

QUOTE_LIMIT = 80
"""Characters of a user's input an error message quotes; the rest is cut with ``…``."""


def quoted(value: str, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` in at most ``limit`` characters and a count of what was cut, so a
    1 MB argument (or one of escapes: ``\\udcff`` is six) stays one short line."""
    if len(value) <= limit and len(shown := repr(value)) <= limit + 2:
        return shown
    cut = value[:limit]
    while len(repr(cut)) > limit + 2:
        cut = cut[:-1]
    return f"{cut!r}… ({len(value)} characters)"


class ToolkitError(Exception):
    """Base class of every error the toolkit raises on purpose."""

    title: str = "Toolkit error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details

    def __str__(self) -> str:
        return self.message


class ConfigError(ToolkitError):
    """Settings that cannot work: missing credentials, an unreadable weights file."""

    title = "Configuration error"


class InvalidRequest(ToolkitError):
    """A request that is out of bounds or inconsistent.

    ``field`` names the offending input (``"limit"``, ``"period_from"``) when one does.
    """

    title = "Invalid request"

    def __init__(self, message: str, *, field: str | None = None, **details: Any) -> None:
        super().__init__(message, **details)
        self.field = field


class InvalidSourceRef(InvalidRequest):
    """A source reference that names no valid public or private source."""

    title = "Invalid source reference"

    def __init__(self, ref: str, reason: str) -> None:
        super().__init__(f"invalid source_ref {quoted(ref)}: {reason}", field="source_ref")
        self.ref = ref
        self.reason = reason


class InvalidWeights(InvalidRequest):
    """Search weights that are negative, all zero or not finite."""

    title = "Invalid search weights"


class UnsupportedLanguage(InvalidRequest):
    """A language the chosen summary engine cannot write."""

    title = "Unsupported language"


class NotFound(ToolkitError):
    """Something asked for by name does not exist."""

    title = "Not found"


class SourceNotFound(NotFound):
    """No such source in the store, and no live fetcher to get it."""

    title = "Source not found"


class ApiKeyNotFound(NotFound):
    """No API key with that id or prefix."""

    title = "API key not found"


class ScheduleNotFound(NotFound):
    """No digest schedule with that id."""

    title = "Schedule not found"


class AlertNotFound(NotFound):
    """No alert with that id."""

    title = "Alert not found"


class ImportFormatError(ToolkitError):
    """An export file that is truncated or malformed; the message says where it broke."""

    title = "Malformed export"


class RateLimited(ToolkitError):
    """A rate limit was hit, ours or an upstream's; retry after ``retry_after`` seconds."""

    title = "Rate limited"

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message, retry_after=retry_after)
        self.retry_after = retry_after


class UpstreamError(ToolkitError):
    """An upstream service (LLM endpoint, messenger API) failed."""

    title = "Upstream error"


class UpstreamTimeout(UpstreamError):
    """The upstream service did not answer in time."""

    title = "Upstream timeout"


class UpstreamInvalidOutput(UpstreamError):
    """The upstream answered, but its output stayed invalid after a retry."""

    title = "Invalid upstream output"


class UpstreamContextExceeded(UpstreamError):
    """The prompt was larger than the LLM's context window (the summary splits the chunk)."""

    title = "Prompt larger than the LLM's context"


class DeadlineExceeded(ToolkitError):
    """The work passed the deadline its caller set (``toolkit.deadline.within``)."""

    title = "Deadline exceeded"


class Busy(ToolkitError):
    """Every turn for this kind of work (summaries) is taken and none came free within
    the wait allowed (``toolkit.turns``); try again after ``retry_after`` seconds."""

    title = "Busy"

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message, retry_after=retry_after)
        self.retry_after = retry_after


class StoreError(ToolkitError):
    """The local store cannot be opened, migrated or written."""

    title = "Store error"


class StoreDamaged(StoreError):
    """The store's database file is corrupted: nothing is served from it until it is
    restored or recovered (the one log line about it says how)."""

    title = "Store damaged"


class StoreTimeout(StoreError):
    """The database did not answer a statement in time (a server that stopped answering,
    or a statement past its deadline): the statement was ended, nothing waits for it."""

    title = "Store timeout"


class StoreFull(StoreError):
    """No space left on the disk that holds the store or an import's temporary files."""

    title = "Store full"


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc``, or an exception it was raised from, says the disk is full: an
    ``OSError`` with ENOSPC or EDQUOT, SQLite's ``SQLITE_FULL``, PostgreSQL's
    ``disk_full`` (SQLSTATE 53100)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
            return True
        if getattr(exc, "sqlstate", None) == _PG_DISK_FULL:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


_SQLITE_FULL = 13
_PG_DISK_FULL = "53100"


class UpstreamRateLimited(UpstreamError, RateLimited):
    """The upstream (messenger FloodWait, LLM 429) refused for now; retry after ``retry_after``.

    Both an ``UpstreamError`` (the caller did nothing wrong) and a ``RateLimited`` (code
    that waits out limits, such as the sync loop, treats it like any other limit).
    """

    title = "Upstream rate limited"


class AuthenticationError(ToolkitError):
    """A missing, malformed, unknown or revoked API key.

    ``error`` is the RFC 6750 code: ``None`` when no credential was sent at all,
    ``"invalid_request"`` for a malformed header, ``"invalid_token"`` for a bad key.
    """

    title = "Authentication required"

    def __init__(self, message: str, *, error: str | None = "invalid_token") -> None:
        super().__init__(message)
        self.error = error


class PermissionDenied(ToolkitError):
    """A valid API key that lacks the scope a request needs (``scope`` names it)."""

    title = "Insufficient scope"

    def __init__(self, message: str, *, scope: str) -> None:
        super().__init__(message, scope=scope)
        self.scope = scope
