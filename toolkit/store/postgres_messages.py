"""The PostgreSQL store's message readers: windows, periods, neighbours, paging.

A mixin of ``PostgresStore`` (``postgres.py``), which provides ``self.pg``. Filters and
rounding are those of the SQLite store (``rows.message_filters``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from toolkit.models import Message
from toolkit.store.postgres_conn import PgConnections
from toolkit.store.reads import WindowReads
from toolkit.store.rows import MSG_COLUMNS, POSTGRES, to_message

_ANCHOR = "(SELECT posted_at FROM messages WHERE source_id = %(s)s AND message_id = %(m)s)"
_NEIGHBOURS = f"""
(SELECT {MSG_COLUMNS}, 0 FROM messages WHERE source_id = %(s)s AND NOT is_service
   AND (posted_at, message_id) < ({_ANCHOR}, %(m)s)
 ORDER BY posted_at DESC, message_id DESC LIMIT %(before)s)
UNION ALL
(SELECT {MSG_COLUMNS}, 1 FROM messages WHERE source_id = %(s)s AND NOT is_service
   AND (posted_at, message_id) > ({_ANCHOR}, %(m)s)
 ORDER BY posted_at, message_id LIMIT %(after)s)
"""

_M_COLUMNS = ", ".join("m." + c for c in MSG_COLUMNS.split(", "))
# Every anchor's two walks of the time index, in one statement.
_NEIGHBOURS_OF = f"""
SELECT a.message_id, n.*
FROM messages a
CROSS JOIN LATERAL (
    (SELECT 0 AS side, {_M_COLUMNS} FROM messages m
     WHERE m.source_id = a.source_id AND NOT m.is_service
       AND (m.posted_at, m.message_id) < (a.posted_at, a.message_id)
     ORDER BY m.posted_at DESC, m.message_id DESC LIMIT %(before)s)
    UNION ALL
    (SELECT 1 AS side, {_M_COLUMNS} FROM messages m
     WHERE m.source_id = a.source_id AND NOT m.is_service
       AND (m.posted_at, m.message_id) > (a.posted_at, a.message_id)
     ORDER BY m.posted_at, m.message_id LIMIT %(after)s)
) n
WHERE a.source_id = %(s)s AND a.message_id = ANY(%(ids)s)
"""


class PgMessages(WindowReads):
    """Message readers over ``self.pg`` (the window readers are ``WindowReads``)."""

    pg: PgConnections
    dialect = POSTGRES

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.pg.query(sql, params)

    def neighbours(
        self, source_id: int, message_id: int, *, before: int = 2, after: int = 2
    ) -> tuple[list[Message], list[Message]]:
        """Up to ``before``/``after`` non-service messages around one, in posting order."""
        # One round trip for both sides: a search asks this for every hit.
        rows = self.pg.query(
            _NEIGHBOURS, {"s": source_id, "m": message_id, "before": before, "after": after}
        )
        older = [to_message(r) for r in reversed(rows) if r[-1] == 0]
        return older, [to_message(r) for r in rows if r[-1] == 1]

    def neighbours_of(
        self, source_id: int, message_ids: Sequence[int], *, before: int = 2, after: int = 2
    ) -> dict[int, tuple[list[Message], list[Message]]]:
        """``neighbours`` of several messages in one statement (a search's hits); every id
        gets an entry, ``([], [])`` when unknown."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        out: dict[int, tuple[list[Message], list[Message]]] = {m: ([], []) for m in ids}
        rows = self.pg.query(
            _NEIGHBOURS_OF, {"s": source_id, "ids": ids, "before": before, "after": after}
        )
        for row in rows:
            out[row[0]][row[1]].append(to_message(row[2:]))
        for older, newer in out.values():
            older.sort(key=lambda m: (m.posted_at, m.messenger_message_id))
            newer.sort(key=lambda m: (m.posted_at, m.messenger_message_id))
        return out

    def get_messages(self, source_id: int, message_ids: Sequence[int]) -> list[Message]:
        """The messages with these ids, in posting order; unknown ids are skipped."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        rows = self.pg.query(
            f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = %s "
            "AND message_id = ANY(%s) ORDER BY posted_at, message_id",
            (source_id, ids),
        )
        return [to_message(r) for r in rows]

    def iter_messages(self, source_id: int, *, batch_size: int = 1000) -> Iterator[Message]:
        """Every message of a source in posting order, fetched in batches (keyset paging)."""
        last = (-(2**62), -(2**62))
        while True:
            rows = self.pg.query(
                f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = %s "
                "AND (posted_at, message_id) > (%s, %s) "
                "ORDER BY posted_at, message_id LIMIT %s",
                (source_id, last[0], last[1], batch_size),
            )
            if not rows:
                return
            yield from (to_message(row) for row in rows)
            last = (rows[-1][2], rows[-1][1])
