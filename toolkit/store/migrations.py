"""Versioned schema migrations, one list for every dialect: small steps, applied once each.

The name of every applied migration is recorded in ``_migrations``; opening a store
applies the ones it lacks, in order, each in its own transaction, looking its name up
again once the transaction holds the write lock, so that processes opening a new
store together (the workers of ``mlens serve --workers N``) apply each one once. A
dialect with a ``migration_lock`` (PostgreSQL's advisory lock) holds it throughout.

A script's words in braces are the dialect's ``types`` (``{int}``: INTEGER or BIGINT,
``{blob}``: BLOB or BYTEA, ...), so both schemas are written once; times are Unix
seconds everywhere. A migration may belong to one dialect (``only``), add a statement
for one (``extra``), or have been recorded under another name by one (``recorded_as``:
the history each kind of store already holds). Append new migrations at the end; never
edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from toolkit.store.connections import Connections
from toolkit.store.dialect import Dialect


@dataclass(frozen=True)
class Migration:
    """One step of the schema."""

    name: str
    script: str
    only: str | None = None
    """The one dialect (``Dialect.name``) this step is for."""
    extra: Mapping[str, str] = field(default_factory=dict)
    """A statement a dialect adds, by dialect name."""
    recorded_as: Mapping[str, str] = field(default_factory=dict)
    """The name a dialect's stores recorded this step under, when it differs."""

    def name_in(self, dialect: Dialect) -> str | None:
        """The name this step has in ``dialect``'s stores; ``None`` if not for it."""
        if self.only is not None and self.only != dialect.name:
            return None
        return self.recorded_as.get(dialect.name, self.name)

    def statements(self, dialect: Dialect) -> list[str]:
        """The step's statements, in ``dialect``'s words."""
        script = self.script.format_map(dialect.types) + ";" + self.extra.get(dialect.name, "")
        return [s.strip() for s in script.split(";") if s.strip()]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "m001_sources_messages",
        """
        CREATE TABLE sources (
            id {id},
            internal_id {int} UNIQUE,
            handle TEXT UNIQUE,
            title TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('chat', 'channel')),
            created_at {int} NOT NULL,
            last_synced_at {int},
            sync_watermark {int},
            CHECK (internal_id IS NOT NULL OR handle IS NOT NULL)
        );
        CREATE TABLE messages (
            source_id {int} NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            message_id {int} NOT NULL,
            posted_at {int} NOT NULL,
            edited_at {int},
            sender_peer_id TEXT,
            sender_name TEXT,
            text TEXT NOT NULL,
            reply_to {int},
            is_service {bool},
            media TEXT,
            forwarded_from TEXT,
            PRIMARY KEY (source_id, message_id)
        ){norowid};
        CREATE INDEX messages_by_time ON messages (source_id, posted_at, message_id)
        """,
    ),
    Migration(
        "m002_api_keys",
        """
        CREATE TABLE api_keys (
            id {id},
            name TEXT NOT NULL,
            prefix TEXT NOT NULL UNIQUE,
            key_hash TEXT NOT NULL UNIQUE,
            scopes TEXT NOT NULL,
            created_at {int} NOT NULL,
            revoked_at {int},
            last_used_at {int}
        )
        """,
    ),
    Migration(
        "m003_embeddings",
        """
        CREATE TABLE embeddings (
            source_id {int} NOT NULL,
            message_id {int} NOT NULL,
            model TEXT NOT NULL,
            vector {blob} NOT NULL,
            PRIMARY KEY (source_id, model, message_id),
            FOREIGN KEY (source_id, message_id)
                REFERENCES messages (source_id, message_id) ON DELETE CASCADE
        ){norowid}
        """,
        # A text edit deletes the message's vectors by this key.
        extra={
            "postgres": "CREATE INDEX embeddings_by_message ON embeddings (source_id, message_id)"
        },
    ),
    Migration(
        "m004_cache",
        "CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at {int} NOT NULL)",
    ),
    Migration(
        "m005_rate_buckets",
        # Per-key token buckets every service replica shares (``take_rate_token``).
        """
        CREATE TABLE rate_buckets (
            key TEXT PRIMARY KEY,
            tokens {float} NOT NULL,
            updated_at {float} NOT NULL,
            allowed BOOLEAN NOT NULL
        )
        """,
        only="postgres",
    ),
    Migration(
        "m006_topics_senders",
        # Forum topics (each message's topic, each topic's title), the chat's type (it
        # decides whether messages have links), indexes for topic and sender filters.
        """
        ALTER TABLE sources ADD COLUMN chat_type TEXT;
        ALTER TABLE messages ADD COLUMN topic_id {int};
        CREATE TABLE topics (
            source_id {int} NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            topic_id {int} NOT NULL,
            title TEXT NOT NULL,
            PRIMARY KEY (source_id, topic_id)
        ){norowid};
        CREATE INDEX messages_by_topic ON messages (source_id, topic_id, posted_at, message_id);
        CREATE INDEX messages_by_sender
            ON messages (source_id, sender_peer_id, posted_at, message_id)
        """,
        recorded_as={"sqlite": "m005_topics_senders"},
    ),
    Migration(
        "m007_cache_use",
        # The cache is bounded: each entry's last use and size (UTF-8 bytes) decide what
        # goes first (least recently used) when a bound is passed.
        """
        ALTER TABLE cache ADD COLUMN used_at {int};
        ALTER TABLE cache ADD COLUMN size {int};
        CREATE INDEX cache_by_use ON cache (used_at)
        """,
        extra={
            "sqlite": "UPDATE cache SET used_at = created_at, size = length(CAST(value AS BLOB))",
            "postgres": "UPDATE cache SET used_at = created_at, size = octet_length(value)",
        },
    ),
    Migration(
        "m008_source_generation",
        # Bumped by every write that changes a source's searchable messages (upserts,
        # staged imports, topics), so a process's in-memory search index knows when to
        # reload (``toolkit.search.index``), whichever process wrote.
        "ALTER TABLE sources ADD COLUMN generation {int} NOT NULL DEFAULT 0",
    ),
    Migration(
        "m009_message_reactions",
        # The audience's answer to each message: its reactions (a JSON object of counts
        # by key, the most given first; NULL for none), views and forwards (NULL:
        # unknown, as in exports).
        """
        ALTER TABLE messages ADD COLUMN reactions TEXT;
        ALTER TABLE messages ADD COLUMN views {int};
        ALTER TABLE messages ADD COLUMN forwards {int}
        """,
    ),
    Migration(
        "m010_source_timezone",
        # Each source's own time zone (an IANA name or a fixed offset such as +03:00).
        "ALTER TABLE sources ADD COLUMN timezone TEXT",
    ),
)


def migration_names(dialect: Dialect) -> list[str]:
    """The names ``dialect``'s stores record, in order."""
    return [n for m in MIGRATIONS if (n := m.name_in(dialect)) is not None]


def migrate(connections: Connections) -> list[str]:
    """Apply every migration the store has not recorded; return the names applied now."""
    dialect = connections.dialect
    lock = dialect.migration_lock
    with connections.held():
        if lock is not None:
            connections.write(lock[0])
        try:
            connections.write(
                "CREATE TABLE IF NOT EXISTS _migrations "
                f"(name TEXT PRIMARY KEY, applied_at {dialect.types['stamp']})"
            )
            done = {row[0] for row in connections.read("SELECT name FROM _migrations")}
            applied: list[str] = []
            for migration in MIGRATIONS:
                name = migration.name_in(dialect)
                if name is None or name in done:
                    continue
                with connections.transaction():
                    if connections.read("SELECT 1 FROM _migrations WHERE name = ?", (name,)):
                        continue  # applied by another process meanwhile
                    for statement in migration.statements(dialect):
                        connections.write(statement)
                    connections.write(
                        "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                        (name, datetime.now(UTC).isoformat()),
                    )
                applied.append(name)
            return applied
        finally:
            if lock is not None:
                connections.write(lock[1])
