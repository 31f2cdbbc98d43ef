"""Side tables of every store: message vectors, API keys and the result cache."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Unpack

import numpy as np

from toolkit.errors import ApiKeyNotFound
from toolkit.models import ApiKeyRecord, CacheEntry, Message, NewApiKey
from toolkit.store.base import Vector
from toolkit.store.connections import UsesConnections
from toolkit.store.rows import (
    KEY_COLUMNS,
    MSG_COLUMNS,
    CacheBounds,
    posting_order,
    to_key_record,
    to_message,
    ts,
)

_M_COLUMNS = ", ".join("m." + c for c in MSG_COLUMNS.split(", "))
_UNBOUNDED = 2**62
# The entries past either bound, most recently used first: the newest ones stay.
# Most recently used first; the entry just written first of all (another may share its
# second), so that a bound never pushes out what was just stored.
_RECENT = "ORDER BY key = ? DESC, used_at DESC, created_at DESC, key"
_EVICT = (
    "DELETE FROM cache WHERE key IN (SELECT key FROM (SELECT key, "
    f"ROW_NUMBER() OVER ({_RECENT}) AS n, "
    f"SUM(size) OVER ({_RECENT} ROWS UNBOUNDED PRECEDING) "
    "AS total FROM cache) ranked WHERE n > ? OR total > ?) RETURNING key"
)


class Records(UsesConnections):
    """Vectors, API keys (hashes and scopes) and the key-value cache."""

    # Vectors -----------------------------------------------------------------------------
    def get_vectors(
        self, source_id: int, message_ids: Sequence[int], model: str
    ) -> dict[int, Vector]:
        """Stored float32 vectors of ``model`` for these messages (missing ones absent)."""
        out: dict[int, Vector] = {}
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        for clause, params in self.dialect.id_lists("message_id", ids):
            for mid, blob in self.connections.read(
                f"SELECT message_id, vector FROM embeddings "
                f"WHERE source_id = ? AND model = ? AND {clause}",
                (source_id, model, *params),
            ):
                out[mid] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_vectors(self, source_id: int, model: str, vectors: Iterable[tuple[int, Vector]]) -> int:
        """Store (or replace) vectors of ``model``; return how many were written."""
        rows = list(
            {
                int(mid): (source_id, int(mid), model, np.asarray(vec, dtype=np.float32).tobytes())
                for mid, vec in vectors
            }.values()
        )
        self.connections.insert(
            "embeddings",
            "source_id, message_id, model, vector",
            rows,
            "ON CONFLICT (source_id, model, message_id) DO UPDATE SET vector = excluded.vector",
        )
        return len(rows)

    def vector_models(self, source_id: int) -> list[str]:
        """The embedding models a source has stored vectors of, by name."""
        rows = self.connections.read(
            "SELECT DISTINCT model FROM embeddings WHERE source_id = ? ORDER BY model", (source_id,)
        )
        return [row[0] for row in rows]

    def messages_without_vectors(
        self, source_id: int, model: str, *, limit: int | None = None, newest_first: bool = False
    ) -> list[Message]:
        """Searchable messages (with text, not service) lacking a vector of ``model``,
        in posting order (``newest_first``: the reverse, as an import embeds them)."""
        sql = (
            f"SELECT {_M_COLUMNS} FROM messages m WHERE m.source_id = ? AND NOT m.is_service "
            "AND m.text != '' AND NOT EXISTS (SELECT 1 FROM embeddings e "
            "WHERE e.source_id = m.source_id AND e.model = ? AND e.message_id = m.message_id) "
            + posting_order(newest_first=newest_first, alias="m")
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [to_message(r) for r in self.connections.read(sql, (source_id, model))]

    def count_without_vectors(self, source_id: int, model: str) -> int:
        """How many searchable messages (with text, not service) lack a vector of ``model``."""
        rows = self.connections.read(
            "SELECT COUNT(*) FROM messages m WHERE m.source_id = ? AND NOT m.is_service "
            "AND m.text != '' AND NOT EXISTS (SELECT 1 FROM embeddings e "
            "WHERE e.source_id = m.source_id AND e.model = ? AND e.message_id = m.message_id)",
            (source_id, model),
        )
        return int(rows[0][0])

    # API keys ----------------------------------------------------------------------------
    def add_api_key(self, key: NewApiKey) -> ApiKeyRecord:
        """Store a new key's hash and scopes, created now unless ``key.created_at`` is set."""
        scopes, created_at = " ".join(sorted(key.scopes)), ts(key.created_at or _now())
        row = self.connections.write(
            "INSERT INTO api_keys (name, prefix, key_hash, scopes, created_at) "
            f"VALUES (?, ?, ?, ?, ?) RETURNING {KEY_COLUMNS}",
            (key.name, key.prefix, key.key_hash, scopes, created_at),
        )[0]
        return to_key_record(row)

    def api_key_by_prefix(self, prefix: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record with this prefix and its stored hash, or ``None``."""
        sql = f"SELECT {KEY_COLUMNS} FROM api_keys WHERE prefix = ?"
        rows = self.connections.read(sql, (prefix,))
        return (to_key_record(rows[0]), rows[0][3]) if rows else None

    def api_key_by_hash(self, key_hash: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record whose stored hash is ``key_hash`` and that hash, or ``None``."""
        sql = f"SELECT {KEY_COLUMNS} FROM api_keys WHERE key_hash = ?"
        rows = self.connections.read(sql, (key_hash,))
        return (to_key_record(rows[0]), rows[0][3]) if rows else None

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, revoked ones included, oldest first."""
        rows = self.connections.read(f"SELECT {KEY_COLUMNS} FROM api_keys ORDER BY id")
        return [to_key_record(r) for r in rows]

    def revoke_api_key(self, id_or_prefix: str, *, at: datetime | None = None) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix, now unless ``at`` is given (a revoked key
        keeps its first revocation time); ``ApiKeyNotFound`` when none matches."""
        field = "id" if id_or_prefix.isdigit() else "prefix"
        value: int | str = int(id_or_prefix) if field == "id" else id_or_prefix
        rows = self.connections.write(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) "
            f"WHERE {field} = ? RETURNING {KEY_COLUMNS}",
            (ts(at or _now()), value),
        )
        if not rows:
            raise ApiKeyNotFound(f"no API key {id_or_prefix!r}")
        return to_key_record(rows[0])

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record a key's last use (a write: call it through ``write_behind`` on a read path)."""
        self.connections.write(
            "UPDATE api_keys SET last_used_at = ? WHERE id = ?", (ts(when), key_id)
        )

    # Cache -------------------------------------------------------------------------------
    def cache_get(self, key: str) -> str | None:
        """A cached value, or ``None`` (a read only: ``cache_touch`` records the use)."""
        rows = self.connections.read("SELECT value FROM cache WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def cache_touch(self, key: str, when: datetime | None = None) -> None:
        """Record a use of a cached entry (now unless ``when``): it goes last when the
        cache is over a bound."""
        self.connections.write(
            "UPDATE cache SET used_at = ? WHERE key = ?", (ts(when or _now()), key)
        )

    def cache_put(self, key: str, value: str, **bounds: Unpack[CacheBounds]) -> int:
        """Store a cached value (replacing any old one), then remove the least recently
        used entries while the cache holds more than ``max_entries`` entries or
        ``max_bytes`` bytes of values; return how many were removed. A value larger than
        ``max_bytes`` on its own is not stored (nor is an older value kept under its key)."""
        max_entries, max_bytes = bounds.get("max_entries"), bounds.get("max_bytes")
        now, size = ts(_now()), len(value.encode("utf-8", "replace"))
        with self.connections.transaction():
            if max_bytes is not None and size > max_bytes:
                self.connections.write("DELETE FROM cache WHERE key = ?", (key,))
                return 0
            self.connections.write(
                "INSERT INTO cache (key, value, created_at, used_at, size) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "created_at = excluded.created_at, used_at = excluded.used_at, "
                "size = excluded.size",
                (key, value, now, now, size),
            )
            if max_entries is None and max_bytes is None:
                return 0
            return len(
                self.connections.write(
                    _EVICT,
                    (
                        key,
                        key,
                        _UNBOUNDED if max_entries is None else max_entries,
                        _UNBOUNDED if max_bytes is None else max_bytes,
                    ),
                )
            )

    def iter_cache(self, *, batch_size: int = 500) -> Iterator[CacheEntry]:
        """Every cached entry, by key, fetched in batches (keyset paging)."""
        last = ""
        while rows := self.connections.read(
            "SELECT key, value, created_at FROM cache WHERE key > ? ORDER BY key LIMIT ?",
            (last, batch_size),
        ):
            yield from (CacheEntry(k, v, datetime.fromtimestamp(c, tz=UTC)) for k, v, c in rows)
            last = rows[-1][0]

    def merge_cache(self, entries: Iterable[CacheEntry]) -> int:
        """Store entries this store lacks or holds an older version of, keeping their
        ``created_at``, in one transaction; return how many were written."""
        written = 0
        with self.connections.transaction():
            for entry in entries:
                written += len(
                    self.connections.write(
                        "INSERT INTO cache (key, value, created_at, used_at, size) "
                        "VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                        "created_at = excluded.created_at, used_at = excluded.used_at, "
                        "size = excluded.size "
                        "WHERE cache.created_at < excluded.created_at RETURNING 1",
                        (
                            entry.key,
                            entry.value,
                            ts(entry.created_at),
                            ts(entry.created_at),
                            len(entry.value.encode("utf-8", "replace")),
                        ),
                    )
                )
        return written


def _now() -> datetime:
    return datetime.now(UTC)
