"""Versioned schema migrations: an ordered list of small functions, applied once each.

The name of every applied migration is recorded in ``_migrations``; opening a store
applies the ones it lacks, in order, each in its own transaction. Append new ones at
the end; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

Migration = Callable[[sqlite3.Connection], None]


def _run(db: sqlite3.Connection, script: str) -> None:
    """Execute each statement of ``script`` inside the caller's transaction.

    (``executescript`` would COMMIT first, breaking the one-transaction-per-migration rule.)
    """
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_sources_messages(db: sqlite3.Connection) -> None:
    """Sources, messages (one row per source and message id) and the time index."""
    _run(
        db,
        """
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            internal_id INTEGER UNIQUE,
            handle TEXT UNIQUE,
            title TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('chat', 'channel')),
            created_at INTEGER NOT NULL,
            last_synced_at INTEGER,
            sync_watermark INTEGER,
            CHECK (internal_id IS NOT NULL OR handle IS NOT NULL)
        );
        CREATE TABLE messages (
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL,
            posted_at INTEGER NOT NULL,
            edited_at INTEGER,
            sender_peer_id TEXT,
            sender_name TEXT,
            text TEXT NOT NULL,
            reply_to INTEGER,
            is_service INTEGER NOT NULL DEFAULT 0,
            media TEXT,
            forwarded_from TEXT,
            PRIMARY KEY (source_id, message_id)
        ) WITHOUT ROWID;
        CREATE INDEX messages_by_time ON messages (source_id, posted_at, message_id);
        """,
    )


def m002_api_keys(db: sqlite3.Connection) -> None:
    """API keys: SHA-256 of the secret, a readable prefix, scopes, revocation."""
    _run(
        db,
        """
        CREATE TABLE api_keys (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            prefix TEXT NOT NULL UNIQUE,
            key_hash TEXT NOT NULL UNIQUE,
            scopes TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            last_used_at INTEGER
        );
        """,
    )


def m003_embeddings(db: sqlite3.Connection) -> None:
    """Message vectors per embedding model; a text edit deletes the message's vectors."""
    _run(
        db,
        """
        CREATE TABLE embeddings (
            source_id INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            model TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (source_id, model, message_id),
            FOREIGN KEY (source_id, message_id)
                REFERENCES messages (source_id, message_id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        """,
    )


def m004_cache(db: sqlite3.Connection) -> None:
    """A small key-value cache (summaries), keyed by a content hash."""
    _run(
        db,
        """
        CREATE TABLE cache (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        """,
    )


def m005_topics_senders(db: sqlite3.Connection) -> None:
    """Forum topics (each message's topic, each topic's title), the chat's type (which
    decides whether it has message links), and indexes for topic and sender filters."""
    _run(
        db,
        """
        ALTER TABLE sources ADD COLUMN chat_type TEXT;
        ALTER TABLE messages ADD COLUMN topic_id INTEGER;
        CREATE TABLE topics (
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            topic_id INTEGER NOT NULL,
            title TEXT NOT NULL,
            PRIMARY KEY (source_id, topic_id)
        ) WITHOUT ROWID;
        CREATE INDEX messages_by_topic ON messages (source_id, topic_id, posted_at, message_id);
        CREATE INDEX messages_by_sender
            ON messages (source_id, sender_peer_id, posted_at, message_id);
        """,
    )


MIGRATIONS: list[Migration] = [
    m001_sources_messages,
    m002_api_keys,
    m003_embeddings,
    m004_cache,
    m005_topics_senders,
]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; return the names applied now.

    Each migration runs in its own ``BEGIN IMMEDIATE`` transaction and is looked up again
    once the lock is held, so processes opening a new store together (the workers of
    ``mlens serve --workers N``) take turns and apply each migration once.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied: list[str] = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if name in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            recorded = db.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone()
            if recorded is None:  # not applied by another process meanwhile
                migration(db)
                db.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat()),
                )
                applied.append(name)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return applied
