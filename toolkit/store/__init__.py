"""Message stores: the ``MessageStore`` protocol, one SQL store, SQLite (embedded) and
PostgreSQL (teams) as its dialects.

``open_store(settings)`` picks the store the settings name: PostgreSQL when
``MLENS_DATABASE_URL`` is a ``postgresql://`` URL, the SQLite file otherwise. The
PostgreSQL module (and psycopg) is imported only when asked for.

Modules: ``base`` (the protocol), ``store`` (``SQLStore``: the store, written once),
``dialect`` (what a backend says: placeholders, types, locks, connections, errors),
``sqlite`` and ``postgres`` (the two dialects, each with its store), ``connections`` and
``pool`` (statements, transactions, pooled connections), ``sources``, ``reads``,
``writes`` and ``records`` (the store's methods by table), ``staging`` (imports staged
aside), ``migrations`` (the schema, versioned), ``rows`` (rows to models), ``background``
(writes off the request path), ``copy`` (store to store), ``files`` (private files).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.config import Settings
from toolkit.errors import ConfigError
from toolkit.store.base import MessageStore, Vector
from toolkit.store.sqlite import SQLiteStore

__all__ = ["MessageStore", "SQLiteStore", "Vector", "open_store", "open_store_at"]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store_at(
    location: str | Path,
    *,
    pool_size: int = 8,
    connect_timeout: float = 2.0,
    pool_wait: float = 2.0,
) -> MessageStore:
    """Open the store at ``location``: a ``postgresql://`` URL or an SQLite path
    (PostgreSQL: ``pool_size`` connections, each opened within ``connect_timeout`` s, a
    free one waited for ``pool_wait`` s).

    Raises:
        ConfigError: a URL of another scheme, or psycopg is not installed.
    """
    text = str(location)
    if text.startswith(POSTGRES_SCHEMES):
        try:
            from toolkit.store.postgres import PostgresStore
        except ImportError as exc:  # the [pg] extra is missing
            raise ConfigError(
                f"PostgreSQL needs psycopg: pip install 'message-lens[pg]' ({exc})"
            ) from exc
        return PostgresStore(
            text, pool_size=pool_size, connect_timeout=connect_timeout, pool_wait=pool_wait
        )
    if "://" in text:
        raise ConfigError(f"unsupported database URL {text.split('://')[0]}://; use postgresql://")
    return SQLiteStore(text)


def open_store(settings: Settings) -> MessageStore:
    """Open (creating and migrating when needed) the store the settings name.

    PostgreSQL when ``settings.database_url`` is set, else the SQLite file at
    ``settings.database_path``.
    """
    url = settings.postgres_url
    if url is not None:
        if not url.startswith(POSTGRES_SCHEMES):
            raise ConfigError("MLENS_DATABASE_URL must be a postgresql:// URL")
        return open_store_at(
            url,
            pool_size=settings.database_pool_size,
            connect_timeout=settings.database_connect_timeout_seconds,
            pool_wait=settings.database_pool_wait_seconds,
        )
    return SQLiteStore(settings.database_path)
