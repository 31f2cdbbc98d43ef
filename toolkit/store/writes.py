"""Message upserts, forum topics and sync watermarks of every store.

An upsert decides each message's fate in Python, against the stored rows (and, for a
staged import, what the import staged before): inserted, updated by a newer or equal
edit, or unchanged (same content, or the stored one is a later edit). ``classify``
is that rule, shared by direct upserts and staged imports; the rows it keeps are
written by one ``INSERT ... ON CONFLICT DO UPDATE`` whose ``WHERE`` repeats the edit
rule, so a concurrent writer's newer edit is never overwritten.

Reactions are content like the text: a message that comes again with other counts
(a later export, a sync) is updated, under the same edit rule. Views and forwards are
known only to a live sync, sender ids not to an HTML export: a message that comes
without them keeps the stored ones.

A message's posting time is written once, when it is first stored: the first stored
time wins. A message posts once, so another time for it is a reading of the same
moment through another file's offset or ``--timezone`` (a full-account export after
the chat's own, an older export without ``date_unixtime``), never news. Content
is compared without the times, so such a message is unchanged, not updated; the count
of them (``UpsertResult.times_kept``) lets the import report say so.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from toolkit.models import GENERAL_TOPIC, Message, TopicStats, UpsertResult
from toolkit.store.reads import Reads
from toolkit.store.rows import MSG_COLUMNS, content_values, dt, ts

CONTENT = MSG_COLUMNS.split(", ")[2:]
"""The stored columns after ``source_id, message_id``."""
_POSTED, _EDITED, _TEXT, _TOPIC = (
    CONTENT.index(c) for c in ("posted_at", "edited_at", "text", "topic_id")
)
_KEPT_WHEN_UNKNOWN = tuple(CONTENT.index(c) for c in ("views", "forwards", "sender_peer_id"))
"""Columns not every source knows (views and forwards: only a live sync; sender ids: not
an HTML export): a message without them keeps the stored values."""
EDITABLE = [c for c in CONTENT if c != "posted_at"]
"""The columns an edit may change: all but the posting time."""
NEWER = "COALESCE(excluded.edited_at, 0) >= COALESCE({table}.edited_at, 0)"


def upsert_tail(table: str, *, newer_only: bool = True) -> str:
    """The ``ON CONFLICT`` clause of an insert of ``MSG_COLUMNS`` rows into ``table``: the
    stored content but the posting time is replaced (only by a newer or equal edit, with
    ``newer_only``); an import's own staging table (``newer_only=False``) takes every column."""
    where = f" WHERE {NEWER.format(table=table.split('.')[-1])}" if newer_only else ""
    sets = ", ".join(f"{c} = excluded.{c}" for c in (EDITABLE if newer_only else CONTENT))
    return f"ON CONFLICT (source_id, message_id) DO UPDATE SET {sets}{where}"


def classify(
    batch: Iterable[Message], current: dict[int, tuple[Any, ...]]
) -> tuple[UpsertResult, dict[int, tuple[Any, ...]], set[int]]:
    """Each message against ``current`` (stored content by id, updated as it goes).

    Returns:
        The counts; the content to write, by id; the ids whose text an update changed
        (their vectors go).
    """
    inserted = updated = unchanged = times_kept = 0
    dirty: dict[int, tuple[Any, ...]] = {}
    changed: set[int] = set()
    for m in batch:
        new, old = content_values(m), current.get(m.messenger_message_id)
        if old is not None:
            times_kept += old[_POSTED] != new[_POSTED]
            new = _merged(new, old)
        if old is None:
            inserted += 1
        elif old[2:] == new[2:] or (old[_EDITED] or 0) > (new[_EDITED] or 0):
            unchanged += 1  # the same content (whatever its times say), or an older edit
            continue
        else:
            updated += 1
            if old[_TEXT] != new[_TEXT]:
                changed.add(m.messenger_message_id)
        current[m.messenger_message_id] = dirty[m.messenger_message_id] = new
    return UpsertResult(inserted, updated, unchanged, times_kept), dirty, changed


def _merged(new: tuple[Any, ...], old: tuple[Any, ...]) -> tuple[Any, ...]:
    """A message's new content (``content_values``) with what the stored row keeps: its
    first posting time, General as its topic, views and forwards the new one lacks."""
    merged = list(new)
    merged[_POSTED] = old[_POSTED]  # the first stored posting time wins
    if new[_TOPIC] is None and old[_TOPIC] == GENERAL_TOPIC:
        # A forum's message outside any topic is in General once stored
        # (``upsert_topics``); an export that brings it again without a topic agrees.
        merged[_TOPIC] = GENERAL_TOPIC
    for i in _KEPT_WHEN_UNKNOWN:
        if new[i] is None:
            merged[i] = old[i]
    return tuple(merged)


def by_source(messages: Iterable[Message]) -> dict[int, list[Message]]:
    """Messages grouped by source, each group in the given order."""
    out: dict[int, list[Message]] = {}
    for m in messages:
        out.setdefault(m.source_id, []).append(m)
    return out


class MessageWrites(Reads):
    """``upsert_messages``, forum topics and sync watermarks."""

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Insert new messages; replace a stored one only by a newer or equal edit.

        A message whose stored content is identical is left alone, so re-importing the
        same export changes nothing. A changed text drops the message's vectors.
        """
        total = UpsertResult()
        with self.connections.transaction():
            for source_id, batch in by_source(messages).items():
                ids = [m.messenger_message_id for m in batch]
                result, dirty, changed = classify(batch, self.message_rows(source_id, ids))
                self.connections.insert(
                    "messages",
                    MSG_COLUMNS,
                    [(source_id, mid, *row) for mid, row in dirty.items()],
                    upsert_tail("messages"),
                )
                for clause, params in self.dialect.id_lists("message_id", sorted(changed)):
                    self.connections.write(
                        f"DELETE FROM embeddings WHERE source_id = ? AND {clause}",
                        (source_id, *params),
                    )
                if dirty:
                    self.bump_generation(source_id)
                total += result
        return total

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record forum topic titles (a later title replaces an earlier one).

        Once a source has topics it is a forum: its messages stored without a topic
        belong to General (id 1), which gets its title unless one was given.
        """
        rows = list({int(tid): (source_id, int(tid), title) for tid, title in topics}.values())
        if not rows:
            return
        insert, columns = self.connections.insert, "source_id, topic_id, title"
        with self.connections.transaction():
            known = dict(
                self.connections.read(
                    "SELECT topic_id, title FROM topics WHERE source_id = ?", (source_id,)
                )
            )
            replace = "ON CONFLICT (source_id, topic_id) DO UPDATE SET title = excluded.title"
            insert("topics", columns, rows, replace)
            general = [(source_id, GENERAL_TOPIC, "General")]
            insert("topics", columns, general, "ON CONFLICT DO NOTHING")
            moved = self.connections.write(
                "UPDATE messages SET topic_id = ? WHERE source_id = ? AND topic_id IS NULL"
                " RETURNING message_id",
                (GENERAL_TOPIC, source_id),
            )
            retitled = any(known.get(topic_id) != title for _, topic_id, title in rows)
            if moved or retitled or GENERAL_TOPIC not in known:  # a re-import changes nothing
                self.bump_generation(source_id)

    def bump_generation(self, source_id: int) -> None:
        """Mark a source's messages as changed (inside the writer's transaction): search
        indexes of every process reload it (``source_generation``)."""
        self.connections.write(
            "UPDATE sources SET generation = generation + 1 WHERE id = ?", (source_id,)
        )

    def source_generation(self, source_id: int) -> int:
        """How many writes have changed a source's messages (0 for an unknown source)."""
        rows = self.connections.read("SELECT generation FROM sources WHERE id = ?", (source_id,))
        return int(rows[0][0]) if rows else 0

    def list_topics(self, source_id: int) -> list[TopicStats]:
        """A forum's topics with their non-service message counts, by id; ``[]`` elsewhere.

        A topic seen in messages whose title is unknown (a live sync that started after
        the topic was created) is listed as ``Topic <id>``.
        """
        read = self.connections.read
        titles = dict(read("SELECT topic_id, title FROM topics WHERE source_id = ?", (source_id,)))
        counts = {
            tid: (int(count), last)
            for tid, count, last in read(
                "SELECT topic_id, COUNT(*), MAX(posted_at) FROM messages "
                "WHERE source_id = ? AND topic_id IS NOT NULL AND NOT is_service "
                "GROUP BY topic_id",
                (source_id,),
            )
        }
        return [
            TopicStats(tid, titles.get(tid, f"Topic {tid}"), *_count_last(counts.get(tid)))
            for tid in sorted(set(titles) | set(counts))
        ]

    def get_watermark(self, source_id: int) -> int | None:
        """The highest message id a live sync has committed for a source."""
        rows = self.connections.read(
            "SELECT sync_watermark FROM sources WHERE id = ?", (source_id,)
        )
        return rows[0][0] if rows else None

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        """Record sync progress; the watermark never moves backwards."""
        self.connections.write(
            "UPDATE sources SET sync_watermark = CASE WHEN COALESCE(sync_watermark, 0) > ? "
            "THEN sync_watermark ELSE ? END, last_synced_at = ? WHERE id = ?",
            (message_id, message_id, ts(synced_at), source_id),
        )


def _count_last(found: tuple[int, Any] | None) -> tuple[int, datetime | None]:
    return (0, None) if found is None else (found[0], dt(found[1]))
