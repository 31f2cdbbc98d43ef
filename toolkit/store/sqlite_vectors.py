"""Sync watermarks and message vectors of the SQLite store (a mixin of ``SQLiteStore``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np

from toolkit.models import Message
from toolkit.store.base import Vector
from toolkit.store.rows import MSG_COLUMNS, posting_order, to_message, ts
from toolkit.store.sqlite_db import ConnectionsUser
from toolkit.store.sqlite_rows import IN_CHUNK


class WatermarksAndVectors(ConnectionsUser):
    """Watermark and vector methods of ``SQLiteStore``."""

    # Sync watermark ----------------------------------------------------------------------
    def get_watermark(self, source_id: int) -> int | None:
        """The highest message id a live sync has committed for a source."""
        rows = self._query("SELECT sync_watermark FROM sources WHERE id = ?", (source_id,))
        return rows[0][0] if rows else None

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        """Record sync progress; the watermark never moves backwards."""
        with self._conns.transaction() as db:
            db.execute(
                "UPDATE sources SET sync_watermark = MAX(COALESCE(sync_watermark, 0), ?), "
                "last_synced_at = ? WHERE id = ?",
                (message_id, ts(synced_at), source_id),
            )

    # Vectors -----------------------------------------------------------------------------
    def get_vectors(
        self, source_id: int, message_ids: Sequence[int], model: str
    ) -> dict[int, Vector]:
        """Stored float32 vectors of ``model`` for these messages (missing ones absent)."""
        out: dict[int, Vector] = {}
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        for start in range(0, len(ids), IN_CHUNK):
            chunk = ids[start : start + IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            for mid, blob in self._query(
                "SELECT message_id, vector FROM embeddings "
                f"WHERE source_id = ? AND model = ? AND message_id IN ({marks})",
                (source_id, model, *chunk),
            ):
                out[mid] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_vectors(self, source_id: int, model: str, vectors: Iterable[tuple[int, Vector]]) -> int:
        """Store (or replace) vectors of ``model``; return how many were written."""
        rows = [
            (source_id, int(mid), model, np.asarray(vec, dtype=np.float32).tobytes())
            for mid, vec in vectors
        ]
        with self._conns.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings (source_id, message_id, model, vector) "
                "VALUES (?, ?, ?, ?)",
                rows,
            )
        return len(rows)

    def vector_models(self, source_id: int) -> list[str]:
        """The embedding models a source has stored vectors of, by name."""
        rows = self._query(
            "SELECT DISTINCT model FROM embeddings WHERE source_id = ? ORDER BY model", (source_id,)
        )
        return [row[0] for row in rows]

    def messages_without_vectors(
        self, source_id: int, model: str, *, limit: int | None = None, newest_first: bool = False
    ) -> list[Message]:
        """Searchable messages (with text, not service) lacking a vector of ``model``,
        in posting order (``newest_first``: the reverse, as an import embeds them)."""
        sql = (
            f"SELECT {', '.join('m.' + c.strip() for c in MSG_COLUMNS.split(','))} "
            "FROM messages m LEFT JOIN embeddings e ON e.source_id = m.source_id "
            "AND e.message_id = m.message_id AND e.model = ? "
            "WHERE m.source_id = ? AND m.is_service = 0 AND m.text != '' AND e.vector IS NULL "
            + posting_order(newest_first=newest_first, alias="m")
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [to_message(r) for r in self._query(sql, (model, source_id))]
