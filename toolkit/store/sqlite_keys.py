"""API keys and the result cache of the SQLite store (a mixin of ``SQLiteStore``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from toolkit.errors import ApiKeyNotFound
from toolkit.models import ApiKeyRecord, CacheEntry
from toolkit.store.rows import KEY_COLUMNS, to_key_record, ts
from toolkit.store.sqlite_db import ConnectionsUser


class KeysAndCache(ConnectionsUser):
    """API keys (hashes and scopes) and the key-value cache, over ``self._conns``."""

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
        with self._conns.transaction() as db:
            cur = db.execute(
                "INSERT INTO api_keys (name, prefix, key_hash, scopes, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, prefix, key_hash, " ".join(sorted(set(scopes))), created),
            )
            row = db.execute(
                f"SELECT {KEY_COLUMNS} FROM api_keys WHERE id = ?", (cur.lastrowid,)
            ).fetchone()
        return to_key_record(row)

    def api_key_by_prefix(self, prefix: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record with this prefix and its stored hash, or ``None``."""
        rows = self._query(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE prefix = ?", (prefix,))
        return (to_key_record(rows[0]), rows[0][3]) if rows else None

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, revoked ones included, oldest first."""
        return [
            to_key_record(r) for r in self._query(f"SELECT {KEY_COLUMNS} FROM api_keys ORDER BY id")
        ]

    def revoke_api_key(self, id_or_prefix: str, *, at: datetime | None = None) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix, now unless ``at`` is given (a revoked key
        keeps its first revocation time); ``ApiKeyNotFound`` when none matches."""
        with self._conns.transaction() as db:
            field = "id" if id_or_prefix.isdigit() else "prefix"
            value: int | str = int(id_or_prefix) if field == "id" else id_or_prefix
            rows = db.execute(
                f"SELECT {KEY_COLUMNS} FROM api_keys WHERE {field} = ?", (value,)
            ).fetchall()
            if not rows:
                raise ApiKeyNotFound(f"no API key {id_or_prefix!r}")
            db.execute(
                "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
                (ts(at or datetime.now(UTC)), rows[0][0]),
            )
            row = db.execute(
                f"SELECT {KEY_COLUMNS} FROM api_keys WHERE id = ?", (rows[0][0],)
            ).fetchone()
        return to_key_record(row)

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record a key's last use (a write: call it through ``write_behind`` on a read path)."""
        with self._conns.transaction() as db:
            db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (ts(when), key_id))

    def cache_get(self, key: str) -> str | None:
        """A cached value, or ``None``."""
        rows = self._query("SELECT value FROM cache WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def cache_put(self, key: str, value: str) -> None:
        """Store a cached value (replacing any old one)."""
        with self._conns.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO cache (key, value, created_at) VALUES (?, ?, ?)",
                (key, value, ts(datetime.now(UTC))),
            )

    def iter_cache(self, *, batch_size: int = 500) -> Iterator[CacheEntry]:
        """Every cached entry, by key, fetched in batches (keyset paging)."""
        last = ""
        while rows := self._query(
            "SELECT key, value, created_at FROM cache WHERE key > ? ORDER BY key LIMIT ?",
            (last, batch_size),
        ):
            for key, value, created in rows:
                yield CacheEntry(key, value, datetime.fromtimestamp(created, tz=UTC))
            last = rows[-1][0]

    def merge_cache(self, entries: Iterable[CacheEntry]) -> int:
        """Store entries this store lacks or holds an older version of, keeping their
        ``created_at``, in one transaction; return how many were written."""
        written = 0
        with self._conns.transaction() as db:
            for entry in entries:
                written += db.execute(
                    "INSERT INTO cache (key, value, created_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                    "created_at = excluded.created_at WHERE cache.created_at < excluded.created_at",
                    (entry.key, entry.value, ts(entry.created_at)),
                ).rowcount
        return written
