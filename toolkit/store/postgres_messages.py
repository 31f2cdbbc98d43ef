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

_M_COLUMNS = ", ".join("m." + c for c in MSG_COLUMNS.split(", "))
_OLDER = "(m.posted_at, m.message_id) < (a.posted_at, a.message_id)"
_NEWER = "(m.posted_at, m.message_id) > (a.posted_at, a.message_id)"
_DESC = "ORDER BY m.posted_at DESC, m.message_id DESC LIMIT %(before)s"
_ASC = "ORDER BY m.posted_at, m.message_id LIMIT %(after)s"


def _walk(side: int, where: str, order: str) -> str:
    return (
        f"(SELECT {side} AS side, {_M_COLUMNS} FROM messages m "
        f"WHERE m.source_id = a.source_id AND NOT m.is_service AND {where} {order})"
    )


def _neighbours_of(walks: str) -> str:
    return (
        f"SELECT a.message_id, n.* FROM messages a CROSS JOIN LATERAL ({walks}) n "
        "WHERE a.source_id = %(s)s AND a.message_id = ANY(%(ids)s)"
    )


# Every anchor's two walks of the time index, in one statement.
NEIGHBOURS_OF = _neighbours_of(f"{_walk(0, _OLDER, _DESC)} UNION ALL {_walk(1, _NEWER, _ASC)}")
# The same within the anchor's topic. ``IS NOT DISTINCT FROM`` would use no index, so
# an anchor with a topic walks ``messages_by_topic`` (equal topic) and one without (a
# non-forum source) walks ``messages_by_time`` keeping those without a topic; the
# branch that does not apply stops at its one-time test of ``a.topic_id``.
_TOPIC = "m.topic_id = a.topic_id AND "
_NO_TOPIC = "a.topic_id IS NULL AND m.topic_id IS NULL AND "
NEIGHBOURS_OF_TOPIC = _neighbours_of(
    " UNION ALL ".join(
        _walk(side, topic + where, order)
        for topic in (_TOPIC, _NO_TOPIC)
        for side, where, order in ((0, _OLDER, _DESC), (1, _NEWER, _ASC))
    )
)


class PgMessages(WindowReads):
    """Message readers over ``self.pg`` (the window readers are ``WindowReads``)."""

    pg: PgConnections
    dialect = POSTGRES

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.pg.query(sql, params)

    def neighbours_of(
        self,
        source_id: int,
        message_ids: Sequence[int],
        *,
        before: int = 2,
        after: int = 2,
        same_topic: bool = True,
    ) -> dict[int, tuple[list[Message], list[Message]]]:
        """``neighbours`` of several messages in one statement (a search's hits); every id
        gets an entry, ``([], [])`` when unknown."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        out: dict[int, tuple[list[Message], list[Message]]] = {m: ([], []) for m in ids}
        rows = self.pg.query(
            NEIGHBOURS_OF_TOPIC if same_topic else NEIGHBOURS_OF,
            {"s": source_id, "ids": ids, "before": before, "after": after},
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
