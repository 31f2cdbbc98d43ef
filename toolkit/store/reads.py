"""The readers both stores share: source look-ups, counts, periods, recent and scan windows.

A mixin: a store provides ``_read(sql, params)`` (one statement, its rows) and
``dialect`` (``rows.SQLITE`` or ``rows.POSTGRES``); the SQL is the same otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from toolkit.errors import SourceNotFound, StoreError
from toolkit.models import Message, Source, SourceRef
from toolkit.store.rows import (
    MSG_COLUMNS,
    SOURCE_COLUMNS,
    Dialect,
    message_filters,
    to_message,
    to_source,
)


class _Reads:
    """What both read mixins need of a store: its SQL dialect and one read statement."""

    dialect: Dialect

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError  # each store runs the statement on a read connection


class WindowReads(_Reads):
    """``count_messages``, ``messages_in_period``, ``recent_messages``, ``scan_window``,
    and ``neighbours`` by way of the store's own ``neighbours_of``."""

    # Each store walks its own indexes, in one statement (see ``MessageStore``).
    neighbours_of: Callable[..., dict[int, tuple[list[Message], list[Message]]]]

    def neighbours(
        self,
        source_id: int,
        message_id: int,
        *,
        before: int = 2,
        after: int = 2,
        same_topic: bool = True,
    ) -> tuple[list[Message], list[Message]]:
        """Up to ``before``/``after`` non-service messages around one, in posting order
        (of the message's own forum topic unless ``same_topic`` is false)."""
        return self.neighbours_of(
            source_id, [message_id], before=before, after=after, same_topic=same_topic
        )[int(message_id)]

    def count_messages(
        self,
        source_id: int,
        *,
        include_service: bool = False,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> int:
        """How many messages a source has (in one topic, from some senders, when given)."""
        where, params = message_filters(
            self.dialect,
            include_service=include_service,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        sql = f"SELECT COUNT(*) FROM messages WHERE source_id = {self.dialect.mark}{where}"
        return int(self._read(sql, (source_id, *params))[0][0])

    def messages_in_period(
        self,
        source_id: int,
        start: datetime | None,
        end: datetime | None,
        *,
        include_service: bool = False,
        limit: int | None = None,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> list[Message]:
        """Messages with ``start <= posted_at < end``, oldest first (at most ``limit``),
        of one topic and some senders when given."""
        where, params = message_filters(
            self.dialect,
            since=start,
            until=end,
            include_service=include_service,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        sql = (
            f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = {self.dialect.mark}{where} "
            "ORDER BY posted_at, message_id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [to_message(r) for r in self._read(sql, (source_id, *params))]

    def recent_messages(
        self,
        source_id: int,
        limit: int,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        include_service: bool = False,
        with_text_only: bool = False,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> list[Message]:
        """The most recent ``limit`` messages with ``since <= posted_at <= until`` (of one
        topic and some senders when given), oldest first."""
        window = {"since": since, "until": until, "topic_id": topic_id}
        rows = self._newest(
            MSG_COLUMNS,
            source_id,
            limit,
            sender_peer_ids=sender_peer_ids,
            include_service=include_service,
            with_text_only=with_text_only,
            **window,
        )
        return [to_message(r) for r in reversed(rows)]

    def scan_window(
        self,
        source_id: int,
        limit: int,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, int, str]]:
        """The most recent ``limit`` searchable messages in ``[since, until]``, newest first,
        taken after the topic and sender filters when given.

        Rows are ``(message id, posted_at in Unix seconds, text)``: a search at 10,000
        messages spends its time scoring rather than building ``Message`` objects.
        """
        return self._newest(
            "message_id, posted_at, text",
            source_id,
            limit,
            since=since,
            until=until,
            with_text_only=True,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )

    def _newest(self, columns: str, source_id: int, limit: int, **filters: Any) -> list[Any]:
        """``columns`` of the ``limit`` newest messages passing ``filters``, newest first."""
        where, params = message_filters(self.dialect, until_inclusive=True, **filters)
        p = self.dialect.mark
        return self._read(
            f"SELECT {columns} FROM messages WHERE source_id = {p}{where} "
            f"ORDER BY posted_at DESC, message_id DESC LIMIT {p}",
            (source_id, *params, int(limit)),
        )


class SourceLookups(_Reads):
    """``find_source``, ``get_source`` and ``get_source_by_id`` over ``_read``."""

    def find_source(self, ref: SourceRef) -> Source | None:
        """The source a reference names, or ``None``."""
        if ref.handle is not None:
            column, value = "handle", ref.handle.lower()
        else:
            column, value = "internal_id", ref.internal_id  # type: ignore[assignment]
        sql = f"SELECT {SOURCE_COLUMNS} FROM sources WHERE {column} = {self.dialect.mark}"
        rows = self._read(sql, (value,))
        return to_source(rows[0]) if rows else None

    def get_source(self, ref: SourceRef) -> Source:
        """The source a reference names; ``SourceNotFound`` when the store has none."""
        source = self.find_source(ref)
        if source is None:
            raise SourceNotFound(f"no source {ref.key} in the store; import or sync it first")
        return source

    def get_source_by_id(self, source_id: int) -> Source:
        """The source with this store id; ``SourceNotFound`` when there is none."""
        sql = f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id = {self.dialect.mark}"
        rows = self._read(sql, (source_id,))
        if not rows:
            raise SourceNotFound(f"no source with id {source_id}")
        return to_source(rows[0])

    def _keyed_source(self, internal_id: int | None, handle: str | None) -> Any | None:
        """``(id, internal_id, handle)`` of the stored source with this internal id, else
        with this (lower-case) handle; ``None`` when neither is stored."""
        select = "SELECT id, internal_id, handle FROM sources WHERE"
        for column, value in (("internal_id", internal_id), ("handle", handle)):
            if value is not None:
                rows = self._read(f"{select} {column} = {self.dialect.mark}", (value,))
                if rows:
                    return rows[0]
        return None

    def _check_rekey(
        self, title: str, internal_id: int | None, handle: str | None, stored: Any
    ) -> None:
        """Refuse an upsert that would change a stored source's handle or internal id, or
        give it a handle another source holds (``StoreError``)."""
        source_id, old_internal, old_handle = stored
        if handle and old_handle and handle != old_handle:
            raise StoreError(f"source {title!r} is already known as @{old_handle}, not @{handle}")
        if internal_id and old_internal and internal_id != old_internal:
            raise StoreError(f"@{handle} already belongs to another source id")
        p = self.dialect.mark
        taken = f"SELECT 1 FROM sources WHERE handle = {p} AND id != {p}"
        if handle and not old_handle and self._read(taken, (handle, source_id)):
            raise StoreError(f"@{handle} already belongs to another source")
