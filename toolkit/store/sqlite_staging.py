"""Staged imports for SQLite: stage the whole file aside, then publish it in one short write.

An import used to be one write transaction as long as the file: every other writer
(a sync, a key's last-used stamp, another import) waited for minutes and then failed
with ``database is locked``. Now the messages go to a private staging database (a
0600 temporary file next to the store) while the export is read, with no lock on the
store at all; only when the whole file has been read does ``publish`` attach the
staging file and apply it in ONE transaction of a few set-based statements. A file
that breaks half-way never touches the store; a ``kill -9`` leaves the store as it
was (and a stale staging file behind).

Counts are decided as the messages arrive, against the store's committed rows and
what this import staged before (the same rules as ``SQLiteStore.upsert_messages``);
``publish`` applies the same rules again in SQL, so a concurrent writer can never be
overwritten by an older edit.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from toolkit.models import Message, Source, SourceKind, UpsertResult
from toolkit.store.rows import MSG_COLUMNS, SourceFields, content_values, source_keys

if TYPE_CHECKING:
    from toolkit.store.sqlite import SQLiteStore

_VALUES = MSG_COLUMNS.replace("source_id, ", "")
_MARKS = ",".join("?" * len(MSG_COLUMNS.split(",")))
_CHUNK = 500


class SQLiteStaging:
    """An ``ImportSink`` that stages into ``path`` and publishes into ``store``."""

    def __init__(self, store: SQLiteStore, path: Path) -> None:
        self._store = store
        self.path = path
        self._db = sqlite3.connect(str(path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(
            "CREATE TABLE stage_sources (key INTEGER PRIMARY KEY, title TEXT NOT NULL, "
            "kind TEXT NOT NULL, internal_id INTEGER, handle TEXT, chat_type TEXT)"
        )
        self._db.execute(
            "CREATE TABLE stage_topics (source_id INTEGER NOT NULL, topic_id INTEGER NOT NULL, "
            "title TEXT NOT NULL, PRIMARY KEY (source_id, topic_id))"
        )
        self._db.execute(
            f"CREATE TABLE stage_messages ({MSG_COLUMNS}, "
            "PRIMARY KEY (source_id, message_id)) WITHOUT ROWID"
        )
        self._db.execute("BEGIN")
        self._sources: dict[int, Source] = {}
        self._final: dict[int, Source] = {}
        self._next_key = -1

    # ImportSink --------------------------------------------------------------------------
    def upsert_source(self, **fields: Unpack[SourceFields]) -> Source:
        """The source as it will be after publishing (a new one gets a provisional id)."""
        internal_id, handle = source_keys(fields)
        title, kind, chat_type = fields["title"], fields["kind"], fields.get("chat_type")
        source = next(
            (
                s
                for s in self._sources.values()
                if (internal_id is not None and s.internal_id == internal_id)
                or (handle is not None and s.handle == handle)
            ),
            None,
        ) or self._store.lookup_source(internal_id=internal_id, handle=handle)
        if source is None:
            source = Source(id=self._next_key, title=title, kind=kind)
            self._next_key -= 1
        source = replace(
            source,
            title=title,
            kind=kind,
            internal_id=source.internal_id or internal_id,
            handle=source.handle or handle,
            chat_type=chat_type or source.chat_type,
        )
        self._sources[source.id] = source
        self._db.execute(
            "INSERT OR REPLACE INTO stage_sources VALUES (?, ?, ?, ?, ?, ?)",
            (source.id, title, kind.value, internal_id, handle, chat_type),
        )
        return source

    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Stage messages; the counts say what publishing will do to the store."""
        inserted = updated = unchanged = 0
        by_source: dict[int, list[Message]] = {}
        for m in messages:
            by_source.setdefault(m.source_id, []).append(m)
        for key, batch in by_source.items():
            ids = [m.messenger_message_id for m in batch]
            current = self._store.message_rows(key, ids) if key > 0 else {}
            current.update(self._staged_rows(key, ids))
            dirty: dict[int, tuple[Any, ...]] = {}
            for m in batch:
                new = content_values(m)
                old = current.get(m.messenger_message_id)
                if old is None:
                    inserted += 1
                elif old == new or (old[1] or 0) > (new[1] or 0):
                    unchanged += 1
                    continue
                else:
                    updated += 1
                current[m.messenger_message_id] = dirty[m.messenger_message_id] = new
            self._db.executemany(
                f"INSERT OR REPLACE INTO stage_messages ({MSG_COLUMNS}) VALUES ({_MARKS})",
                [(key, mid, *row) for mid, row in dirty.items()],
            )
        return UpsertResult(inserted, updated, unchanged)

    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Stage forum topic titles (published after the source's messages)."""
        self._db.executemany(
            "INSERT OR REPLACE INTO stage_topics VALUES (?, ?, ?)",
            [(source_id, int(tid), title) for tid, title in topics],
        )

    def final(self, source: Source) -> Source:
        """The stored source a staged one became (after ``publish``)."""
        return self._final.get(source.id, source)

    # Staging internals -------------------------------------------------------------------
    def _staged_rows(self, key: int, ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        out: dict[int, tuple[Any, ...]] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(
                f"SELECT message_id, {_VALUES.replace('message_id, ', '')} FROM stage_messages "
                f"WHERE source_id = ? AND message_id IN ({marks})",
                (key, *chunk),
            ):
                out[row[0]] = tuple(row[1:])
        return out

    def publish(self) -> None:
        """Apply everything staged to the store in one write transaction."""
        self._db.execute("COMMIT")
        staged = self._db.execute(
            "SELECT key, title, kind, internal_id, handle, chat_type FROM stage_sources "
            "ORDER BY rowid"
        ).fetchall()
        topics: dict[int, list[tuple[int, str]]] = {}
        for key, tid, title in self._db.execute("SELECT * FROM stage_topics ORDER BY 1, 2"):
            topics.setdefault(key, []).append((tid, title))
        self._db.close()
        writer = self._store.writer_for_publish()
        writer.execute("ATTACH DATABASE ? AS stage", (str(self.path),))
        try:
            with self._store.transaction():
                for key, title, kind, internal_id, handle, chat_type in staged:
                    source = self._store.upsert_source(
                        title=title,
                        kind=SourceKind(kind),
                        internal_id=internal_id,
                        handle=handle,
                        chat_type=chat_type,
                    )
                    self._final[key] = source
                    _apply(writer, key, source.id)
                    self._store.upsert_topics(source.id, topics.get(key, []))
        finally:
            writer.execute("DETACH DATABASE stage")

    def discard(self) -> None:
        """Close the staging database (its file is the caller's to remove)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


_NEWER = "COALESCE(s.edited_at, 0) >= COALESCE(m.edited_at, 0)"
_SET = ", ".join(f"{c} = excluded.{c}" for c in _VALUES.split(", ") if c not in ("message_id",))


def _apply(writer: sqlite3.Connection, key: int, source_id: int) -> None:
    """Upsert the staged messages of ``key`` into source ``source_id`` (set-based)."""
    # A changed text invalidates the message's vectors (as in upsert_messages).
    writer.execute(
        "DELETE FROM embeddings WHERE source_id = ? AND message_id IN ("
        "SELECT s.message_id FROM stage.stage_messages s JOIN messages m "
        "ON m.source_id = ? AND m.message_id = s.message_id "
        f"WHERE s.source_id = ? AND s.text != m.text AND {_NEWER})",
        (source_id, source_id, key),
    )
    writer.execute(
        f"INSERT INTO messages ({MSG_COLUMNS}) SELECT ?, {_VALUES} "
        "FROM stage.stage_messages WHERE source_id = ? "
        f"ON CONFLICT (source_id, message_id) DO UPDATE SET {_SET} "
        "WHERE COALESCE(excluded.edited_at, 0) >= COALESCE(messages.edited_at, 0)",
        (source_id, key),
    )
