"""The message readers of every store: counts, periods, recent and scan windows, neighbours,
look-ups by id and paging, over ``connections.read`` and the dialect's words."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from toolkit.models import Message, MessageFilter, Walk
from toolkit.store.connections import UsesConnections
from toolkit.store.rows import MSG_COLUMNS, filter_clause, to_message

_CONTENT = MSG_COLUMNS.replace("source_id, ", "")


def _posting_key(m: Message) -> tuple[datetime, int]:
    return m.posted_at, m.messenger_message_id


class Reads(UsesConnections):
    """Message readers (``MessageStore``), all in posting order unless said otherwise."""

    def _where(self, where: MessageFilter) -> tuple[str, list[Any]]:
        return filter_clause(where, arrays=self.dialect.arrays)

    def count_messages(self, source_id: int, filter: MessageFilter = MessageFilter()) -> int:
        """How many of a source's messages ``filter`` takes."""
        where, params = self._where(filter)
        sql = f"SELECT COUNT(*) FROM messages WHERE source_id = ?{where}"
        return int(self.connections.read(sql, (source_id, *params))[0][0])

    def count_senders(self, source_id: int, filter: MessageFilter = MessageFilter()) -> int:
        """How many people (or channels) wrote the messages ``filter`` takes."""
        where, params = self._where(filter)
        sql = (
            "SELECT COUNT(DISTINCT COALESCE(sender_peer_id, sender_name)) FROM messages "
            f"WHERE source_id = ?{where}"
        )
        return int(self.connections.read(sql, (source_id, *params))[0][0])

    def messages_in_period(
        self, source_id: int, filter: MessageFilter = MessageFilter(), *, limit: int | None = None
    ) -> list[Message]:
        """The messages ``filter`` takes, oldest first (the oldest ``limit`` when given)."""
        where, params = self._where(filter)
        sql = (
            f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = ?{where} "
            "ORDER BY posted_at, message_id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [to_message(r) for r in self.connections.read(sql, (source_id, *params))]

    def recent_messages(
        self, source_id: int, limit: int, filter: MessageFilter = MessageFilter()
    ) -> list[Message]:
        """The most recent ``limit`` messages ``filter`` takes, oldest first."""
        rows = self._newest(MSG_COLUMNS, source_id, limit, filter)
        return [to_message(r) for r in reversed(rows)]

    def scan_window(
        self, source_id: int, limit: int, filter: MessageFilter = MessageFilter()
    ) -> list[tuple[int, int, str]]:
        """The most recent ``limit`` searchable messages (text, not service) ``filter``
        takes, newest first: the window is taken after its filters.

        Rows are ``(message id, posted_at in Unix seconds, text)``: a search at 10,000
        messages spends its time scoring rather than building ``Message`` objects.
        """
        return self._newest("message_id, posted_at, text", source_id, limit, filter.searchable())

    def index_rows(self, source_id: int) -> list[tuple[int, int, str, int | None, str | None]]:
        """Every searchable message of a source (text, not service), newest first, as
        ``(message id, posted_at in Unix seconds, text, topic id, sender peer id)``: what
        an in-memory search index holds (``toolkit.search.index``)."""
        where, params = self._where(MessageFilter().searchable())
        return self.connections.read(
            "SELECT message_id, posted_at, text, topic_id, sender_peer_id FROM messages "
            f"WHERE source_id = ?{where} ORDER BY posted_at DESC, message_id DESC",
            (source_id, *params),
        )

    def message_outline(
        self, source_id: int, filter: MessageFilter = MessageFilter()
    ) -> list[tuple[int, int, int]]:
        """Every searchable message (text, not service) ``filter`` takes, in posting
        order, as ``(message id, posted_at in Unix seconds, characters of text)``: three
        integers a row, so that sampling a source of a million messages reads no text."""
        where, params = self._where(filter.searchable())
        rows = self.connections.read(
            "SELECT message_id, posted_at, LENGTH(text) FROM messages "
            f"WHERE source_id = ?{where} ORDER BY posted_at, message_id",
            (source_id, *params),
        )
        return [(int(i), int(at), int(n)) for i, at, n in rows]

    def activity_hours(self, source_id: int) -> tuple[tuple[int, ...], int]:
        """For each hour of the day in UTC, the (sender, hour) slots with a message, and
        the number of days with one (``MessageStore.activity_hours``)."""
        read = self.connections.read
        rows = read(
            "SELECT slot % 24, COUNT(*) FROM (SELECT DISTINCT sender_peer_id, sender_name, "
            "posted_at / 3600 AS slot FROM messages WHERE source_id = ? AND NOT is_service) "
            "AS slots GROUP BY slot % 24",
            (source_id,),
        )
        hours = [0] * 24
        for hour, count in rows:
            hours[int(hour)] = int(count)
        days = read(
            "SELECT COUNT(DISTINCT posted_at / 86400) FROM messages "
            "WHERE source_id = ? AND NOT is_service",
            (source_id,),
        )
        return tuple(hours), int(days[0][0])

    def _newest(self, columns: str, source_id: int, limit: int, filter: MessageFilter) -> list[Any]:
        """``columns`` of the ``limit`` newest messages ``filter`` takes, newest first."""
        where, params = self._where(filter)
        return self.connections.read(
            f"SELECT {columns} FROM messages WHERE source_id = ?{where} "
            "ORDER BY posted_at DESC, message_id DESC LIMIT ?",
            (source_id, *params, int(limit)),
        )

    def neighbours_of(
        self, source_id: int, message_ids: Sequence[int], walk: Walk = Walk()
    ) -> dict[int, tuple[list[Message], list[Message]]]:
        """``neighbours`` of several messages, in one statement per ``max_anchors`` of them
        (the dialect's: each side of each anchor a short walk of an index from it; with
        ``same_topic`` of ``messages_by_topic``, else of ``messages_by_time``). Every id
        gets an entry (``([], [])`` when unknown)."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        out: dict[int, tuple[list[Message], list[Message]]] = {m: ([], []) for m in ids}
        step = self.dialect.max_anchors
        for start in range(0, len(ids), step):
            sql, params = self.dialect.neighbours(source_id, ids[start : start + step], walk)
            for row in self.connections.read(sql, params):
                out[row[0]][row[1]].append(to_message(row[2:]))
        for older, newer in out.values():
            older.sort(key=_posting_key)
            newer.sort(key=_posting_key)
        return out

    def get_messages(self, source_id: int, message_ids: Sequence[int]) -> list[Message]:
        """The messages with these ids, in posting order; unknown ids are skipped."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        found: list[Message] = []
        for clause, params in self.dialect.id_lists("message_id", ids):
            rows = self.connections.read(
                f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = ? AND {clause}",
                (source_id, *params),
            )
            found.extend(to_message(r) for r in rows)
        found.sort(key=_posting_key)
        return found

    def iter_messages(self, source_id: int, *, batch_size: int = 1000) -> Iterator[Message]:
        """Every message of a source in posting order, fetched in batches (keyset paging)."""
        last = (-(2**62), -(2**62))
        while rows := self.connections.read(
            f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = ? "
            "AND (posted_at, message_id) > (?, ?) ORDER BY posted_at, message_id LIMIT ?",
            (source_id, *last, batch_size),
        ):
            yield from (to_message(row) for row in rows)
            last = (rows[-1][2], rows[-1][1])

    def message_rows(
        self, source_id: int, message_ids: Sequence[int]
    ) -> dict[int, tuple[Any, ...]]:
        """Stored columns (as ``rows.content_values`` gives them) of these messages, by id."""
        out: dict[int, tuple[Any, ...]] = {}
        for clause, params in self.dialect.id_lists("message_id", message_ids):
            for row in self.connections.read(
                f"SELECT {_CONTENT} FROM messages WHERE source_id = ? AND {clause}",
                (source_id, *params),
            ):
                out[row[0]] = tuple(row[1:])
        return out
