"""API keys and the result cache of the SQLite store (a mixin of ``SQLiteStore``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from toolkit.errors import ApiKeyNotFound
from toolkit.models import ApiKeyRecord
from toolkit.store.rows import KEY_COLUMNS, to_key_record, ts
from toolkit.store.sqlite_db import ConnectionsUser


class KeysAndCache(ConnectionsUser):
    """API keys (hashes and scopes) and the key-value cache, over ``self._conns``."""

    def add_api_key(
        self, *, name: str, prefix: str, key_hash: str, scopes: Iterable[str]
    ) -> ApiKeyRecord:
        """Store a new key's hash and scopes."""
        with self._conns.transaction() as db:
            cur = db.execute(
                "INSERT INTO api_keys (name, prefix, key_hash, scopes, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, prefix, key_hash, " ".join(sorted(set(scopes))), ts(datetime.now(UTC))),
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

    def revoke_api_key(self, id_or_prefix: str) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix; ``ApiKeyNotFound`` when none matches."""
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
                (ts(datetime.now(UTC)), rows[0][0]),
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
