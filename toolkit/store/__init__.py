"""Message stores: the ``MessageStore`` protocol and its SQLite implementation."""

from toolkit.store.base import MessageStore, Vector
from toolkit.store.sqlite import SQLiteStore

__all__ = ["MessageStore", "SQLiteStore", "Vector", "open_store"]


def open_store(database: str) -> SQLiteStore:
    """Open (creating and migrating when needed) the store at ``database``."""
    return SQLiteStore(database)
