"""Sources of every store: look-ups by reference, id or keys; upserts; counts and spans."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Unpack

from toolkit.errors import SourceNotFound, StoreError
from toolkit.models import Source, SourceRef, SourceStats, TopicStats, ZoneOrigin
from toolkit.store.connections import UsesConnections
from toolkit.store.rows import SOURCE_COLUMNS, SourceFields, dt, source_keys, to_source, ts

# One pass over the source's messages (and two look-ups of its row).
_STATS = """
SELECT COUNT(*), MIN(posted_at), MAX(posted_at),
    (SELECT last_synced_at FROM sources WHERE id = ?),
    (SELECT sync_watermark FROM sources WHERE id = ?)
FROM messages WHERE source_id = ? AND NOT is_service
"""


class Sources(UsesConnections):
    """Source methods of ``MessageStore``, and the look-ups an import's staging needs."""

    # A source's stats carry its topics (``Topics.list_topics``).
    list_topics: Callable[[int], list[TopicStats]]

    def find_source(self, ref: SourceRef) -> Source | None:
        """The source a reference names, or ``None``."""
        if ref.handle is not None:
            return self.lookup_source(internal_id=None, handle=ref.handle.lower())
        return self.lookup_source(internal_id=ref.internal_id, handle=None)

    def get_source(self, ref: SourceRef) -> Source:
        """The source a reference names; ``SourceNotFound`` when the store has none."""
        source = self.find_source(ref)
        if source is None:
            raise SourceNotFound(f"no source {ref.key} in the store; import or sync it first")
        return source

    def get_source_by_id(self, source_id: int) -> Source:
        """The source with this store id; ``SourceNotFound`` when there is none."""
        sql = f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id = ?"
        rows = self.connections.read(sql, (source_id,))
        if not rows:
            raise SourceNotFound(f"no source with id {source_id}")
        return to_source(rows[0])

    def lookup_source(self, *, internal_id: int | None, handle: str | None) -> Source | None:
        """The stored source with this internal id, else with this (lower-case) handle."""
        for column, value in (("internal_id", internal_id), ("handle", handle)):
            if value is not None:
                sql = f"SELECT {SOURCE_COLUMNS} FROM sources WHERE {column} = ?"
                rows = self.connections.read(sql, (value,))
                if rows:
                    return to_source(rows[0])
        return None

    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """Create or update a source found by internal id or handle.

        A source first imported without a handle (``c/<id>``) gains it when a later
        import names it; a handle already held by another source is an error.
        ``chat_type`` (the export's type name) and ``timezone`` are kept when a later
        call gives none; ``timezone_origin`` is written with a ``timezone`` only.
        """
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        timezone = fields.get("timezone")
        origin = fields.get("timezone_origin") if timezone is not None else None
        write = self.connections.write
        with self.connections.transaction():
            source_id: int | None = None
            while source_id is None:
                stored = self.lookup_source(internal_id=internal_id, handle=handle)
                if stored is not None:
                    self._check_rekey(title, internal_id, handle, stored)
                    source_id = stored.id
                    write(
                        "UPDATE sources SET title = ?, kind = ?, "
                        "internal_id = COALESCE(internal_id, ?), handle = COALESCE(handle, ?), "
                        "chat_type = COALESCE(?, chat_type), timezone = COALESCE(?, timezone), "
                        "timezone_origin = COALESCE(?, timezone_origin) WHERE id = ?",
                        (
                            title,
                            kind.value,
                            internal_id,
                            handle,
                            chat_type,
                            timezone,
                            origin,
                            source_id,
                        ),
                    )
                    continue
                # Another writer may create it meanwhile: then this inserts nothing and
                # the loop updates theirs.
                created = write(
                    "INSERT INTO sources "
                    "(internal_id, handle, title, kind, chat_type, timezone, timezone_origin, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING RETURNING id",
                    (
                        internal_id,
                        handle,
                        title,
                        kind.value,
                        chat_type,
                        timezone,
                        origin,
                        ts(datetime.now(UTC)),
                    ),
                )
                source_id = int(created[0][0]) if created else None
            return self.get_source_by_id(source_id)

    def set_source_timezone(
        self, source_id: int, timezone: str | None, origin: ZoneOrigin | None = "set"
    ) -> Source:
        """Record a source's own time zone (an IANA name or a fixed offset, checked by
        the caller; ``None`` forgets it) and where it comes from (``origin``; none without
        a zone), and return the source.

        Raises:
            SourceNotFound: no source with this id.
        """
        self.connections.write(
            "UPDATE sources SET timezone = ?, timezone_origin = ? WHERE id = ?",
            (timezone, origin if timezone is not None else None, source_id),
        )
        return self.get_source_by_id(source_id)

    def _check_rekey(
        self, title: str, internal_id: int | None, handle: str | None, stored: Source
    ) -> None:
        """Refuse an upsert that would change a stored source's handle or internal id, or
        give it a handle another source holds (``StoreError``)."""
        if handle and stored.handle and handle != stored.handle:
            raise StoreError(
                f"source {title!r} is already known as @{stored.handle}, not @{handle}"
            )
        if internal_id and stored.internal_id and internal_id != stored.internal_id:
            raise StoreError(f"@{handle} already belongs to another source id")
        taken = "SELECT 1 FROM sources WHERE handle = ? AND id != ?"
        if handle and not stored.handle and self.connections.read(taken, (handle, stored.id)):
            raise StoreError(f"@{handle} already belongs to another source")

    def list_sources(self) -> list[SourceStats]:
        """Every source with its counts, time span and last sync, by title."""
        rows = self.connections.read("SELECT id FROM sources ORDER BY title, id")
        return [self.source_stats(row[0]) for row in rows]

    def source_stats(self, source_id: int) -> SourceStats:
        """One source's non-service message count, time span, last sync and topics."""
        source = self.get_source_by_id(source_id)
        row: Any = self.connections.read(_STATS, (source_id,) * 3)[0]
        count, first, last, synced_at, watermark = row
        return SourceStats(
            source=source,
            message_count=int(count),
            first_message_at=dt(first),
            last_message_at=dt(last),
            last_synced_at=dt(synced_at),
            last_synced_message_id=watermark,
            topics=tuple(self.list_topics(source_id)),
        )
