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
the history each kind of store already holds). Every step names its variant in every
dialect of ``DIALECTS`` (``everywhere`` for one script in each one's words; a
``Variant(None, reason=...)`` for a dialect with nothing to do): a step that misses one
fails when this module is imported, never skipped silently. Append new migrations at
the end; never edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from toolkit.store.connections import Connections
from toolkit.store.dialect import DIALECTS, Dialect


@dataclass(frozen=True)
class Variant:
    """What one migration is in one dialect."""

    script: str | None
    """Its statements, ``;``-separated (words in braces are the dialect's ``types``);
    ``None``: nothing to do in this dialect, and ``reason`` says why."""
    reason: str = ""
    recorded_as: str | None = None
    """The name this dialect's stores recorded the step under, when it differs."""


@dataclass(frozen=True)
class Migration:
    """One step of the schema, with its variant in every dialect (``DIALECTS``).

    Raises:
        ValueError: (when the step is made, i.e. when this module is imported) a dialect
            without a variant, a variant of an unknown dialect, or a variant that does
            nothing and does not say why.
    """

    name: str
    variants: Mapping[str, Variant]

    def __post_init__(self) -> None:
        missing = [d for d in DIALECTS if d not in self.variants]
        unknown = [d for d in self.variants if d not in DIALECTS]
        if missing or unknown:
            raise ValueError(
                f"migration {self.name} must name a variant for every dialect: "
                f"missing {missing}, unknown {unknown}"
            )
        for dialect, variant in self.variants.items():
            if variant.script is None and not variant.reason:
                raise ValueError(f"migration {self.name} skips {dialect} without a reason")

    def name_in(self, dialect: Dialect) -> str | None:
        """The name this step has in ``dialect``'s stores; ``None`` if it has nothing
        to do there."""
        variant = self.variants[dialect.name]
        if variant.script is None:
            return None
        return variant.recorded_as or self.name

    def statements(self, dialect: Dialect) -> list[str]:
        """The step's statements, in ``dialect``'s words."""
        script = self.variants[dialect.name].script or ""
        return [s.strip() for s in script.format_map(dialect.types).split(";") if s.strip()]


def everywhere(
    name: str,
    script: str,
    *,
    extra: Mapping[str, str] | None = None,
    recorded_as: Mapping[str, str] | None = None,
) -> Migration:
    """A step whose ``script`` is the same in every dialect (in each one's ``types``),
    with the statements a dialect adds (``extra``) and the names a dialect recorded it
    under (``recorded_as``), both by dialect name."""
    extra, recorded_as = extra or {}, recorded_as or {}
    return Migration(
        name,
        {
            d: Variant(script + (";" + extra[d] if d in extra else ""), "", recorded_as.get(d))
            for d in DIALECTS
        },
    )


MIGRATIONS: tuple[Migration, ...] = (
    everywhere(
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
    everywhere(
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
    everywhere(
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
    everywhere(
        "m004_cache",
        "CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at {int} NOT NULL)",
    ),
    Migration(
        "m005_rate_buckets",
        {
            # Per-key token buckets every service replica shares (``take_rate_token``).
            "postgres": Variant(
                """
                CREATE TABLE rate_buckets (
                    key TEXT PRIMARY KEY,
                    tokens {float} NOT NULL,
                    updated_at {float} NOT NULL,
                    allowed BOOLEAN NOT NULL
                )
                """
            ),
            "sqlite": Variant(
                None,
                reason="an SQLite store is one machine's: its service keeps rate "
                "buckets in process (the store has no RateBuckets part)",
            ),
        },
    ),
    everywhere(
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
    everywhere(
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
    everywhere(
        "m008_source_generation",
        # Bumped by every write that changes a source's searchable messages (upserts,
        # staged imports, topics), so a process's in-memory search index knows when to
        # reload (``toolkit.search.index``), whichever process wrote.
        "ALTER TABLE sources ADD COLUMN generation {int} NOT NULL DEFAULT 0",
    ),
    everywhere(
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
    everywhere(
        "m010_source_timezone",
        # Each source's own time zone (an IANA name or a fixed offset such as +03:00).
        "ALTER TABLE sources ADD COLUMN timezone TEXT",
    ),
    everywhere(
        "m011_delivery",
        # Digest schedules (toolkit.delivery): the rule, the language and engine, the
        # destinations (JSON, secrets as given), and the end of the last period claimed.
        # A run is the lease of one period: its key (schedule, period end) is unique,
        # and ``lease_until`` says when another worker may take over an unfinished one.
        # Each destination's outcome of a run is one row.
        """
        CREATE TABLE delivery_schedules (
            id {id},
            source_id {int} NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            source_ref TEXT NOT NULL,
            topic_id {int},
            cadence TEXT NOT NULL CHECK (cadence IN ('daily', 'weekly')),
            at_minute {int} NOT NULL,
            weekday {int},
            language TEXT NOT NULL,
            engine TEXT,
            destinations TEXT NOT NULL,
            created_at {int} NOT NULL,
            covered_until {int}
        );
        CREATE TABLE delivery_runs (
            id {id},
            schedule_id {int} NOT NULL REFERENCES delivery_schedules(id) ON DELETE CASCADE,
            period_start {int} NOT NULL,
            period_end {int} NOT NULL,
            periods {int} NOT NULL,
            status TEXT NOT NULL,
            owner TEXT NOT NULL,
            lease_until {int} NOT NULL,
            attempts {int} NOT NULL,
            claimed_at {int} NOT NULL,
            finished_at {int},
            digest TEXT,
            error TEXT,
            UNIQUE (schedule_id, period_end)
        );
        CREATE INDEX delivery_runs_open ON delivery_runs (status, lease_until);
        CREATE TABLE delivery_results (
            run_id {int} NOT NULL REFERENCES delivery_runs(id) ON DELETE CASCADE,
            destination {int} NOT NULL,
            state TEXT NOT NULL,
            attempts {int} NOT NULL,
            detail TEXT,
            updated_at {int} NOT NULL,
            PRIMARY KEY (run_id, destination)
        ){norowid}
        """,
    ),
    everywhere(
        "m012_source_timezone_origin",
        # Where each source's zone comes from: set (by the user), inferred (from when its
        # people write) or export (the exporter's offset). Before this, an import wrote
        # only offsets (+03:00) unless a zone was named: a named zone is kept as set.
        """
        ALTER TABLE sources ADD COLUMN timezone_origin TEXT;
        UPDATE sources SET timezone_origin = CASE
            WHEN timezone IS NULL THEN NULL
            WHEN timezone LIKE '+%' OR timezone LIKE '-%' THEN 'export'
            ELSE 'set' END
        """,
    ),
    everywhere(
        "m013_alerts",
        # Alerts (toolkit.delivery.alerts): a saved search, its score threshold, its cap
        # per hour and destinations; ``watermarks`` is JSON {source id: the last message
        # id looked at}, ``held`` the matches not posted for the cap since ``held_since``,
        # and ``version`` moves with every claim (the compare-and-set of the lease).
        # A post is one matched message (or the note of held ones) leased like a run:
        # its key (alert, source, message) is unique; each destination's outcome a row.
        """
        CREATE TABLE delivery_alerts (
            id {id},
            query TEXT NOT NULL,
            source_refs TEXT,
            min_score {float} NOT NULL,
            max_per_hour {int} NOT NULL,
            destinations TEXT NOT NULL,
            created_at {int} NOT NULL,
            version {int} NOT NULL,
            watermarks TEXT NOT NULL,
            held {int} NOT NULL,
            held_since {int}
        );
        CREATE TABLE alert_posts (
            id {id},
            alert_id {int} NOT NULL REFERENCES delivery_alerts(id) ON DELETE CASCADE,
            source_id {int},
            message_id {int},
            body TEXT NOT NULL,
            status TEXT NOT NULL,
            owner TEXT NOT NULL,
            lease_until {int} NOT NULL,
            attempts {int} NOT NULL,
            claimed_at {int} NOT NULL,
            finished_at {int},
            error TEXT,
            UNIQUE (alert_id, source_id, message_id)
        );
        CREATE INDEX alert_posts_open ON alert_posts (status, lease_until);
        CREATE INDEX alert_posts_by_time ON alert_posts (alert_id, claimed_at);
        CREATE TABLE alert_results (
            run_id {int} NOT NULL REFERENCES alert_posts(id) ON DELETE CASCADE,
            destination {int} NOT NULL,
            state TEXT NOT NULL,
            attempts {int} NOT NULL,
            detail TEXT,
            updated_at {int} NOT NULL,
            PRIMARY KEY (run_id, destination)
        ){norowid}
        """,
    ),
)


def migration_names(dialect: Dialect) -> list[str]:
    """The names ``dialect``'s stores record, in order."""
    return recorded_names(dialect.name)


def recorded_names(dialect_name: str) -> list[str]:
    """The names the stores of the dialect called ``dialect_name`` (``sqlite``,
    ``postgres``) record, in order: for a file read without opening a store (a backup)."""
    out = []
    for m in MIGRATIONS:
        variant = m.variants[dialect_name]
        if variant.script is not None:
            out.append(variant.recorded_as or m.name)
    return out


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
