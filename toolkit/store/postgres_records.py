"""The PostgreSQL store's side tables: vectors, API keys, the cache and shared rate buckets.

A mixin of ``PostgresStore`` (``postgres.py``), which provides ``self.pg``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

import numpy as np

from toolkit.errors import ApiKeyNotFound
from toolkit.models import GENERAL_TOPIC, ApiKeyRecord, CacheEntry, Message, TopicStats
from toolkit.store.base import Vector
from toolkit.store.postgres_conn import PgConnections
from toolkit.store.rows import (
    KEY_COLUMNS,
    MSG_COLUMNS,
    dt,
    posting_order,
    to_key_record,
    to_message,
    ts,
)

# One statement per request: refill the key's bucket for the time since its last
# request, take a token when one is there, and say whether it was taken. ``now()`` is
# the database's clock, so replicas with skewed clocks still share one budget.
_TAKE_TOKEN = """
INSERT INTO rate_buckets AS b (key, tokens, updated_at, allowed)
VALUES (%(key)s, %(burst)s - 1, EXTRACT(EPOCH FROM now()), TRUE)
ON CONFLICT (key) DO UPDATE SET
    allowed = LEAST(%(burst)s, b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s)
        >= 1 - 1e-9,
    tokens = GREATEST(0, LEAST(%(burst)s,
        b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s)
        - CASE WHEN LEAST(%(burst)s,
            b.tokens + (EXTRACT(EPOCH FROM now()) - b.updated_at) * %(rate)s) >= 1 - 1e-9
          THEN 1 ELSE 0 END),
    updated_at = EXTRACT(EPOCH FROM now())
RETURNING allowed, tokens
"""


class PgRecords:
    """Vectors, API keys, cache and rate buckets over ``self.pg``."""

    pg: PgConnections

    # Vectors -----------------------------------------------------------------------------
    def get_vectors(
        self, source_id: int, message_ids: Sequence[int], model: str
    ) -> dict[int, Vector]:
        """Stored float32 vectors of ``model`` for these messages (missing ones absent)."""
        rows = self.pg.query(
            "SELECT message_id, vector FROM embeddings "
            "WHERE source_id = %s AND model = %s AND message_id = ANY(%s)",
            (source_id, model, [int(i) for i in message_ids]),
        )
        return {mid: np.frombuffer(blob, dtype=np.float32) for mid, blob in rows}

    def put_vectors(self, source_id: int, model: str, vectors: Iterable[tuple[int, Vector]]) -> int:
        """Store (or replace) vectors of ``model``; return how many were written."""
        rows = [
            (source_id, int(mid), model, np.asarray(vec, dtype=np.float32).tobytes())
            for mid, vec in vectors
        ]
        if not rows:
            return 0
        with self.pg.transaction(), self.pg.connection() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO embeddings (source_id, message_id, model, vector) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (source_id, model, message_id) "
                "DO UPDATE SET vector = EXCLUDED.vector",
                rows,
            )
        return len(rows)

    def vector_models(self, source_id: int) -> list[str]:
        """The embedding models a source has stored vectors of, by name."""
        rows = self.pg.query(
            "SELECT DISTINCT model FROM embeddings WHERE source_id = %s ORDER BY model",
            (source_id,),
        )
        return [row[0] for row in rows]

    def messages_without_vectors(
        self, source_id: int, model: str, *, limit: int | None = None, newest_first: bool = False
    ) -> list[Message]:
        """Searchable messages (with text, not service) lacking a vector of ``model``,
        in posting order (``newest_first``: the reverse, as an import embeds them)."""
        cols = ", ".join("m." + c.strip() for c in MSG_COLUMNS.split(","))
        sql = (
            f"SELECT {cols} FROM messages m WHERE m.source_id = %s AND NOT m.is_service "
            "AND m.text != '' AND NOT EXISTS (SELECT 1 FROM embeddings e "
            "WHERE e.source_id = m.source_id AND e.model = %s AND e.message_id = m.message_id) "
            + posting_order(newest_first=newest_first, alias="m")
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [to_message(r) for r in self.pg.query(sql, (source_id, model))]

    # Forum topics ------------------------------------------------------------------------
    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record forum topic titles (rules as in ``MessageStore.upsert_topics``)."""
        rows = [(source_id, int(tid), title) for tid, title in topics]
        if not rows:
            return
        with self.pg.transaction(), self.pg.connection() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO topics (source_id, topic_id, title) VALUES (%s, %s, %s) "
                "ON CONFLICT (source_id, topic_id) DO UPDATE SET title = EXCLUDED.title",
                rows,
            )
            cur.execute(
                "INSERT INTO topics (source_id, topic_id, title) VALUES (%s, %s, 'General') "
                "ON CONFLICT DO NOTHING",
                (source_id, GENERAL_TOPIC),
            )
            cur.execute(
                "UPDATE messages SET topic_id = %s WHERE source_id = %s AND topic_id IS NULL",
                (GENERAL_TOPIC, source_id),
            )

    def list_topics(self, source_id: int) -> list[TopicStats]:
        """A forum's topics with their non-service message counts, by id; ``[]`` elsewhere."""
        rows = self.pg.query(
            "SELECT t.topic_id, t.title, COUNT(m.message_id), MAX(m.posted_at) "
            "FROM topics t LEFT JOIN messages m ON m.source_id = t.source_id "
            "AND m.topic_id = t.topic_id AND NOT m.is_service "
            "WHERE t.source_id = %s GROUP BY t.topic_id, t.title ORDER BY t.topic_id",
            (source_id,),
        )
        return [TopicStats(tid, title, int(count), dt(last)) for tid, title, count, last in rows]

    # API keys ----------------------------------------------------------------------------
    def add_api_key(
        self,
        *,
        name: str,
        prefix: str,
        key_hash: str,
        scopes: Iterable[str],
        created_at: datetime | None = None,
    ) -> ApiKeyRecord:
        """Store a new key's hash and scopes, created now unless ``created_at`` is given."""
        created = ts(created_at or datetime.now(UTC))
        row = self.pg.query(
            "INSERT INTO api_keys (name, prefix, key_hash, scopes, created_at) "
            f"VALUES (%s, %s, %s, %s, %s) RETURNING {KEY_COLUMNS}",
            (name, prefix, key_hash, " ".join(sorted(set(scopes))), created),
        )[0]
        return to_key_record(row)

    def api_key_by_prefix(self, prefix: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record with this prefix and its stored hash, or ``None``."""
        rows = self.pg.query(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE prefix = %s", (prefix,))
        return (to_key_record(rows[0]), rows[0][3]) if rows else None

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, revoked ones included, oldest first."""
        rows = self.pg.query(f"SELECT {KEY_COLUMNS} FROM api_keys ORDER BY id")
        return [to_key_record(r) for r in rows]

    def revoke_api_key(self, id_or_prefix: str, *, at: datetime | None = None) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix, now unless ``at`` is given (a revoked key
        keeps its first revocation time); ``ApiKeyNotFound`` when none matches."""
        field = "id" if id_or_prefix.isdigit() else "prefix"
        value: int | str = int(id_or_prefix) if field == "id" else id_or_prefix
        rows = self.pg.query(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, %s) "
            f"WHERE {field} = %s RETURNING {KEY_COLUMNS}",
            (ts(at or datetime.now(UTC)), value),
        )
        if not rows:
            raise ApiKeyNotFound(f"no API key {id_or_prefix!r}")
        return to_key_record(rows[0])

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record a key's last use."""
        self.pg.query("UPDATE api_keys SET last_used_at = %s WHERE id = %s", (ts(when), key_id))

    # Cache -------------------------------------------------------------------------------
    def cache_get(self, key: str) -> str | None:
        """A cached value, or ``None``."""
        rows = self.pg.query("SELECT value FROM cache WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def cache_put(self, key: str, value: str) -> None:
        """Store a cached value (replacing any old one)."""
        self.pg.query(
            "INSERT INTO cache (key, value, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, "
            "created_at = EXCLUDED.created_at",
            (key, value, ts(datetime.now(UTC))),
        )

    def iter_cache(self, *, batch_size: int = 500) -> Iterator[CacheEntry]:
        """Every cached entry, by key, fetched in batches (keyset paging)."""
        last = ""
        while rows := self.pg.query(
            "SELECT key, value, created_at FROM cache WHERE key > %s ORDER BY key LIMIT %s",
            (last, batch_size),
        ):
            yield from (CacheEntry(k, v, datetime.fromtimestamp(c, tz=UTC)) for k, v, c in rows)
            last = rows[-1][0]

    def merge_cache(self, entries: Iterable[CacheEntry]) -> int:
        """Store entries this store lacks or holds an older version of, keeping their
        ``created_at``, in one transaction; return how many were written."""
        written = 0
        with self.pg.transaction():
            for entry in entries:
                written += len(
                    self.pg.query(
                        "INSERT INTO cache (key, value, created_at) VALUES (%s, %s, %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, "
                        "created_at = EXCLUDED.created_at "
                        "WHERE cache.created_at < EXCLUDED.created_at RETURNING 1",
                        (entry.key, entry.value, ts(entry.created_at)),
                    )
                )
        return written

    # Shared rate limits --------------------------------------------------------------------
    def take_rate_token(self, key: str, *, per_minute: float, burst: int) -> float | None:
        """Take one token from ``key``'s shared bucket in one atomic statement.

        Returns:
            ``None`` when the request is admitted, else the seconds until a token is back.
        """
        rate = per_minute / 60.0
        allowed, tokens = self.pg.query(
            _TAKE_TOKEN, {"key": key, "burst": float(burst), "rate": rate}
        )[0]
        return None if allowed else max(0.0, (1.0 - float(tokens)) / rate)
