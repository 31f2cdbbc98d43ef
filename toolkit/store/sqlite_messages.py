"""Messages of the SQLite store (a mixin of ``SQLiteStore``).

Reads go through ``self._conns.reader()`` (a pooled read connection that never waits
for the writer); writes through ``self._conns.transaction()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from toolkit.models import Message, UpsertResult
from toolkit.store.reads import WindowReads
from toolkit.store.rows import MSG_COLUMNS, SQLITE, content_values, to_message
from toolkit.store.sqlite_db import ConnectionsUser
from toolkit.store.sqlite_rows import IN_CHUNK

_MARKS = ",".join("?" * len(MSG_COLUMNS.split(",")))


def neighbours_sql(anchors: int, *, same_topic: bool) -> str:
    """The statement of ``Messages.neighbours_of`` for this many anchors.

    Per anchor and side, parameters: anchor id, source id, (source id, anchor id when
    ``same_topic``), source id, anchor id, anchor id, limit.
    """
    anchor = "(SELECT {} FROM messages WHERE source_id = ? AND message_id = ?)"
    # ``IS``: an anchor without a topic (a non-forum source) walks those without one.
    topic = f"AND topic_id IS {anchor.format('topic_id')} " if same_topic else ""
    # Row values let SQLite walk the index from the anchor (an OR of the two
    # conditions would scan the whole source: milliseconds per call at 10k messages).
    walks = [
        f"SELECT * FROM (SELECT ? AS anchor, {side} AS side, {MSG_COLUMNS} "
        f"FROM messages WHERE source_id = ? AND is_service = 0 {topic}"
        f"AND (posted_at, message_id) {op} ({anchor.format('posted_at')}, ?) "
        f"ORDER BY posted_at {order}, message_id {order} LIMIT ?)"
        for _ in range(anchors)
        for side, op, order in ((0, "<", "DESC"), (1, ">", "ASC"))
    ]
    return " UNION ALL ".join(walks)


class Messages(WindowReads, ConnectionsUser):
    """Message methods of ``SQLiteStore`` (the window readers are ``WindowReads``)."""

    dialect = SQLITE

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._query(sql, params)

    def message_rows(
        self, source_id: int, message_ids: Sequence[int]
    ) -> dict[int, tuple[Any, ...]]:
        """Stored columns (as ``content_values`` gives them) of these messages, by id."""
        out: dict[int, tuple[Any, ...]] = {}
        columns = MSG_COLUMNS.replace("source_id, ", "")
        for start in range(0, len(message_ids), IN_CHUNK):
            chunk = list(message_ids[start : start + IN_CHUNK])
            marks = ",".join("?" * len(chunk))
            for row in self._query(
                f"SELECT {columns} FROM messages WHERE source_id = ? AND message_id IN ({marks})",
                (source_id, *chunk),
            ):
                out[row[0]] = tuple(row[1:])
        return out

    # Messages ----------------------------------------------------------------------------
    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Insert new messages; replace a stored one only by a newer or equal edit.

        A message whose stored content is identical is left alone, so re-importing the
        same export changes nothing. A changed text drops the message's vectors.
        """
        inserted = updated = unchanged = 0
        with self._conns.transaction() as db:
            for m in messages:
                new = content_values(m)
                old = db.execute(
                    "SELECT posted_at, edited_at, sender_peer_id, sender_name, text, reply_to, "
                    "is_service, media, forwarded_from, topic_id FROM messages "
                    "WHERE source_id = ? AND message_id = ?",
                    (m.source_id, m.messenger_message_id),
                ).fetchone()
                if old is None:
                    db.execute(
                        f"INSERT INTO messages ({MSG_COLUMNS}) VALUES ({_MARKS})",
                        (m.source_id, m.messenger_message_id, *new),
                    )
                    inserted += 1
                    continue
                if tuple(old) == new or (old[1] or 0) > (new[1] or 0):
                    unchanged += 1
                    continue
                db.execute(
                    "UPDATE messages SET posted_at = ?, edited_at = ?, sender_peer_id = ?, "
                    "sender_name = ?, text = ?, reply_to = ?, is_service = ?, media = ?, "
                    "forwarded_from = ?, topic_id = ? WHERE source_id = ? AND message_id = ?",
                    (*new, m.source_id, m.messenger_message_id),
                )
                if old[4] != m.text:
                    db.execute(
                        "DELETE FROM embeddings WHERE source_id = ? AND message_id = ?",
                        (m.source_id, m.messenger_message_id),
                    )
                updated += 1
        return UpsertResult(inserted, updated, unchanged)

    def neighbours_of(
        self,
        source_id: int,
        message_ids: Sequence[int],
        *,
        before: int = 2,
        after: int = 2,
        same_topic: bool = True,
    ) -> dict[int, tuple[list[Message], list[Message]]]:
        """``neighbours`` of several messages, in one statement per 200 of them.

        Each side of each anchor is a small walk of an index from the anchor, the walks
        joined with ``UNION ALL``: a search's 20 hits cost one statement instead of 60.
        With ``same_topic`` the walk is of the anchor's topic (``topic_id IS`` the
        anchor's, so a message without a topic walks those without one: the whole of a
        non-forum source) over ``messages_by_topic``; without, of ``messages_by_time``.
        Every id gets an entry (``([], [])`` when unknown).
        """
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        out: dict[int, tuple[list[Message], list[Message]]] = {m: ([], []) for m in ids}
        # SQLite allows 500 terms in a compound SELECT: two per anchor.
        for start in range(0, len(ids), 200):
            chunk = ids[start : start + 200]
            params: list[object] = []
            for mid in chunk:
                for limit in (before, after):
                    params += [mid, source_id, *((source_id, mid) if same_topic else ())]
                    params += [source_id, mid, mid, limit]
            for row in self._query(neighbours_sql(len(chunk), same_topic=same_topic), params):
                out[row[0]][row[1]].append(to_message(row[2:]))
        for older, _ in out.values():
            older.reverse()
        return out

    def get_messages(self, source_id: int, message_ids: Sequence[int]) -> list[Message]:
        """The messages with these ids, in posting order; unknown ids are skipped."""
        found: list[Message] = []
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        for start in range(0, len(ids), IN_CHUNK):
            chunk = ids[start : start + IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            found.extend(
                to_message(r)
                for r in self._query(
                    f"SELECT {MSG_COLUMNS} FROM messages "
                    f"WHERE source_id = ? AND message_id IN ({marks})",
                    (source_id, *chunk),
                )
            )
        found.sort(key=lambda m: (m.posted_at, m.messenger_message_id))
        return found

    def iter_messages(self, source_id: int, *, batch_size: int = 1000) -> Iterator[Message]:
        """Every message of a source in posting order, fetched in batches (keyset paging)."""
        last = (-(2**62), -(2**62))
        while True:
            rows = self._query(
                f"SELECT {MSG_COLUMNS} FROM messages WHERE source_id = ? "
                "AND (posted_at > ? OR (posted_at = ? AND message_id > ?)) "
                "ORDER BY posted_at, message_id LIMIT ?",
                (source_id, last[0], last[0], last[1], batch_size),
            )
            if not rows:
                return
            for row in rows:
                yield to_message(row)
            last = (rows[-1][2], rows[-1][1])
