"""Forum topics of the SQLite store (a mixin of ``SQLiteStore``)."""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.models import GENERAL_TOPIC, TopicStats
from toolkit.store.rows import dt
from toolkit.store.sqlite_db import ConnectionsUser


class Topics(ConnectionsUser):
    """``upsert_topics`` and ``list_topics``."""

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record forum topic titles (a later title replaces an earlier one).

        Once a source has topics it is a forum: its messages stored without a topic
        belong to General (id 1), which gets its title unless one was given.
        """
        rows = [(source_id, int(tid), title) for tid, title in topics]
        if not rows:
            return
        with self._conns.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO topics (source_id, topic_id, title) VALUES (?, ?, ?)",
                rows,
            )
            db.execute(
                "INSERT OR IGNORE INTO topics (source_id, topic_id, title) VALUES (?, ?, ?)",
                (source_id, GENERAL_TOPIC, "General"),
            )
            db.execute(
                "UPDATE messages SET topic_id = ? WHERE source_id = ? AND topic_id IS NULL",
                (GENERAL_TOPIC, source_id),
            )

    def list_topics(self, source_id: int) -> list[TopicStats]:
        """A forum's topics with their non-service message counts, by id; ``[]`` elsewhere.

        A topic seen in messages whose title is unknown (a live sync that started after
        the topic was created) is listed as ``Topic <id>``.
        """
        titles = dict(
            self._query("SELECT topic_id, title FROM topics WHERE source_id = ?", (source_id,))
        )
        counts = {
            tid: (count, last)
            for tid, count, last in self._query(
                "SELECT topic_id, COUNT(*), MAX(posted_at) FROM messages "
                "WHERE source_id = ? AND topic_id IS NOT NULL AND is_service = 0 "
                "GROUP BY topic_id",
                (source_id,),
            )
        }
        return [
            TopicStats(
                tid,
                titles.get(tid, f"Topic {tid}"),
                counts.get(tid, (0, None))[0],
                dt(counts.get(tid, (0, None))[1]),
            )
            for tid in sorted(set(titles) | set(counts))
        ]
