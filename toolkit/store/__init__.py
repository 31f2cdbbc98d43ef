"""Message stores: the ``MessageStore`` protocol (and the small ones it is made of), one
SQL store, SQLite (embedded) and PostgreSQL (teams) as its dialects.

``open_store(settings)`` picks the store the settings name: the backend of the
``MLENS_DATABASE_URL`` scheme (``backends.BACKENDS``: ``postgresql://``), the SQLite
file otherwise. The PostgreSQL module (and psycopg) is imported only when asked for.

Modules: ``base`` (the protocols), ``backends`` (the backends by URL scheme),
``store`` (``SQLStore``: the store, written once), ``dialect`` (what a backend says:
placeholders, types, locks, connections, errors), ``sqlite`` and ``postgres`` (the two
dialects, each with its store), ``connections`` and ``pool`` (statements,
transactions, pooled connections), ``watchdog`` and ``pg_liveness`` (a server that
stops answering), ``sources``, ``reads``, ``writes`` and ``records`` (the store's
methods by table), ``staging`` (imports staged aside), ``migrations`` (the schema,
versioned), ``rows`` (rows to models), ``background`` (writes off the request path),
``copy`` (store to store), ``backup`` (a live store's consistent copy, and its
restore), ``files`` (private files).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.config import Settings
from toolkit.errors import ConfigError
from toolkit.store.backends import BACKENDS, StoreOptions, open_location, scheme_of
from toolkit.store.base import MessageStore, Vector
from toolkit.store.sqlite import SQLiteStore

__all__ = [
    "BACKENDS",
    "MessageStore",
    "SQLiteStore",
    "StoreOptions",
    "Vector",
    "open_store",
    "open_store_at",
    "store_options",
]


def open_store_at(location: str | Path, settings: Settings) -> MessageStore:
    """Open the store at ``location``, a URL of a scheme in ``BACKENDS`` or an SQLite
    path, with the settings' pool and timeouts (``store_options``).

    Raises:
        ConfigError: a URL of another scheme, or its driver is not installed.
    """
    return open_location(str(location), store_options(settings))


def store_options(settings: Settings) -> StoreOptions:
    """The settings' options for opening a store over a network."""
    return StoreOptions(
        pool_size=settings.database.pool_size,
        connect_timeout=settings.database.connect_timeout_seconds,
        pool_wait=settings.database.pool_wait_seconds,
        statement_timeout=settings.database.statement_timeout_seconds or None,
    )


def open_store(settings: Settings) -> MessageStore:
    """Open (creating and migrating when needed) the store the settings name.

    The backend of ``settings.database.url``'s scheme when it is set, else the SQLite
    file at ``settings.database_path``.
    """
    url = settings.database.url_text
    if url is not None:
        if not scheme_of(url):
            raise ConfigError("MLENS_DATABASE_URL must be a URL such as postgresql://…")
        return open_location(url, store_options(settings))
    return SQLiteStore(settings.database_path)
