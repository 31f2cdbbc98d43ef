"""The store backends by URL scheme: ``BACKENDS``, the one place that knows them all.

A location is a URL (``postgresql://user@host/db``) or an SQLite file path (no scheme,
or ``sqlite:///path``). ``open_location`` looks the scheme up in ``BACKENDS`` and calls
the backend's opener; a scheme not in the table is a ``ConfigError`` naming those that
are. A backend's module (and its driver: psycopg) is imported only when its scheme is
asked for. A third backend is one opener here (and its dialect module).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

from toolkit.errors import ConfigError
from toolkit.store.base import MessageStore


@dataclass(frozen=True, slots=True)
class StoreOptions:
    """How to open a store over a network (an embedded one ignores them).

    Attributes:
        pool_size: most connections this process keeps open.
        connect_timeout: seconds to wait for the server when connecting; also how long a
            statement waits for a server that does not answer.
        pool_wait: seconds a caller waits for a free pooled connection.
        statement_timeout: seconds a statement of a request may run (``None``: no bound).
    """

    pool_size: int = 8
    connect_timeout: float = 2.0
    pool_wait: float = 2.0
    statement_timeout: float | None = 30.0


Opener = Callable[[str, StoreOptions], MessageStore]
"""Opens the store at a location (as given, scheme and all) with the options."""


def _sqlite(location: str, options: StoreOptions) -> MessageStore:
    from toolkit.store.sqlite import SQLiteStore

    if location.startswith("sqlite:"):
        path = urlsplit(location).path
        location = path if path else ":memory:"
    return SQLiteStore(location)


def _postgres(location: str, options: StoreOptions) -> MessageStore:
    try:
        from toolkit.store.postgres import PostgresStore
    except ImportError as exc:  # the [pg] extra is missing
        raise ConfigError(
            f"PostgreSQL needs psycopg: pip install 'message-lens[pg]' ({exc})"
        ) from exc
    return PostgresStore(location, **asdict(options))


BACKENDS: Mapping[str, Opener] = {
    "": _sqlite,
    "sqlite": _sqlite,
    "postgresql": _postgres,
    "postgres": _postgres,
}
"""Openers by URL scheme (``""``: a file path, SQLite)."""


def scheme_of(location: str) -> str:
    """The URL scheme of ``location`` (``""`` for a file path), lower case."""
    head, found, _ = location.partition(":")
    if not found or "/" in head or "\\" in head or len(head) == 1:  # a path; C:\ on Windows
        return ""
    if location.startswith(f"{head}://") or head.lower() == "sqlite":
        return head.lower()
    return ""


def open_location(location: str, options: StoreOptions | None = None) -> MessageStore:
    """Open (creating and migrating when needed) the store at ``location``.

    Raises:
        ConfigError: a scheme no backend has, or a backend whose driver is missing.
    """
    scheme = scheme_of(location)
    opener = BACKENDS.get(scheme)
    if opener is None:
        known = ", ".join(f"{s}://" for s in BACKENDS if s)
        raise ConfigError(f"unsupported database URL {scheme}://; use one of {known}")
    return opener(location, options or StoreOptions())
