"""The embedded SQLite ``MessageStore``: one file under ``./data/`` (or ``:memory:``).

WAL journal and a busy timeout so that a reader process never blocks the writer;
``BEGIN IMMEDIATE`` for every write so two writers queue instead of failing late.
One connection guarded by a re-entrant lock serves every thread of a process.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.errors import ApiKeyNotFound, SourceNotFound, StoreError
from toolkit.models import (
    GENERAL_TOPIC,
    ApiKeyRecord,
    Message,
    Source,
    SourceKind,
    SourceRef,
    SourceStats,
    TopicStats,
    UpsertResult,
)
from toolkit.store.base import Vector
from toolkit.store.migrations import migrate

_MSG_COLUMNS = (
    "source_id, message_id, posted_at, edited_at, sender_peer_id, sender_name, text, "
    "reply_to, is_service, media, forwarded_from, topic_id"
)
_SRC_COLUMNS = "id, internal_id, handle, title, kind, chat_type"
_SEARCHABLE = "is_service = 0 AND text != ''"
_IN_CHUNK = 500


def _ts(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp())


def _dt(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def _message(row: sqlite3.Row | tuple[Any, ...]) -> Message:
    return Message(
        source_id=row[0],
        messenger_message_id=row[1],
        posted_at=datetime.fromtimestamp(row[2], tz=UTC),
        edited_at=_dt(row[3]),
        sender_peer_id=row[4],
        sender_name=row[5],
        text=row[6],
        reply_to=row[7],
        is_service=bool(row[8]),
        media=row[9],
        forwarded_from=row[10],
        topic_id=row[11],
    )


def _source(row: sqlite3.Row | tuple[Any, ...]) -> Source:
    return Source(
        id=row[0],
        internal_id=row[1],
        handle=row[2],
        title=row[3],
        kind=SourceKind(row[4]),
        chat_type=row[5],
    )


def _key_record(row: sqlite3.Row | tuple[Any, ...]) -> ApiKeyRecord:
    created = _dt(row[5])
    assert created is not None
    return ApiKeyRecord(
        id=row[0],
        name=row[1],
        prefix=row[2],
        scopes=frozenset(s for s in row[4].split() if s),
        created_at=created,
        revoked_at=_dt(row[6]),
        last_used_at=_dt(row[7]),
    )


class SQLiteStore:
    """SQLite implementation of ``MessageStore``.

    Args:
        database: a file path, or ``":memory:"`` for a private in-memory store (tests).
        busy_timeout_ms: how long a write waits for another process's write to finish.
    """

    def __init__(self, database: str | Path = ":memory:", *, busy_timeout_ms: int = 5000) -> None:
        self.database = str(database)
        if self.database != ":memory:":
            Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if self.database != ":memory:":
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            migrate(self._db)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store at {self.database}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0

    # Transactions ------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot start a write on {self.database}: {exc}") from exc
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._rollback()
                raise
            self._depth = 0
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreError(f"cannot commit to {self.database}: {exc}") from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back by itself (e.g. after SQLITE_FULL).
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # Sources -----------------------------------------------------------------------------
    def upsert_source(
        self,
        *,
        title: str,
        kind: SourceKind,
        internal_id: int | None = None,
        handle: str | None = None,
        chat_type: str | None = None,
    ) -> Source:
        """Create or update a source found by internal id or handle.

        A source first imported without a handle (``c/<id>``) gains it when a later
        import names it; a handle already held by another source is an error.
        ``chat_type`` (the export's type name) is kept when a later call gives none.
        """
        if internal_id is None and handle is None:
            raise ValueError("a source needs an internal id or a handle")
        handle = handle.lower() if handle else None
        with self.transaction():
            rows: list[tuple[Any, ...]] = []
            if internal_id is not None:
                rows = self._query(
                    "SELECT id, internal_id, handle FROM sources WHERE internal_id = ?",
                    (internal_id,),
                )
            if not rows and handle is not None:
                rows = self._query(
                    "SELECT id, internal_id, handle FROM sources WHERE handle = ?", (handle,)
                )
            if not rows:
                cur = self._db.execute(
                    "INSERT INTO sources (internal_id, handle, title, kind, chat_type, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (internal_id, handle, title, kind.value, chat_type, _ts(datetime.now(UTC))),
                )
                source_id = int(cur.lastrowid or 0)
            else:
                source_id, old_internal, old_handle = rows[0]
                if handle and old_handle and handle != old_handle:
                    raise StoreError(
                        f"source {title!r} is already known as @{old_handle}, not @{handle}"
                    )
                if internal_id and old_internal and internal_id != old_internal:
                    raise StoreError(f"@{handle} already belongs to another source id")
                taken = "SELECT 1 FROM sources WHERE handle = ? AND id != ?"
                if handle and not old_handle and self._query(taken, (handle, source_id)):
                    raise StoreError(f"@{handle} already belongs to another source")
                self._db.execute(
                    "UPDATE sources SET title = ?, kind = ?, "
                    "internal_id = COALESCE(internal_id, ?), handle = COALESCE(handle, ?), "
                    "chat_type = COALESCE(?, chat_type) WHERE id = ?",
                    (title, kind.value, internal_id, handle, chat_type, source_id),
                )
            row = self._query(
                f"SELECT {_SRC_COLUMNS} FROM sources WHERE id = ?",
                (source_id,),
            )[0]
        return _source(row)

    def find_source(self, ref: SourceRef) -> Source | None:
        """The source a reference names, or ``None``."""
        if ref.handle is not None:
            rows = self._query(
                f"SELECT {_SRC_COLUMNS} FROM sources WHERE handle = ?",
                (ref.handle.lower(),),
            )
        else:
            rows = self._query(
                f"SELECT {_SRC_COLUMNS} FROM sources WHERE internal_id = ?",
                (ref.internal_id,),
            )
        return _source(rows[0]) if rows else None

    def get_source(self, ref: SourceRef) -> Source:
        """The source a reference names; ``SourceNotFound`` when the store has none."""
        source = self.find_source(ref)
        if source is None:
            raise SourceNotFound(f"no source {ref.key} in the store; import or sync it first")
        return source

    def get_source_by_id(self, source_id: int) -> Source:
        """The source with this store id; ``SourceNotFound`` when there is none."""
        rows = self._query(f"SELECT {_SRC_COLUMNS} FROM sources WHERE id = ?", (source_id,))
        if not rows:
            raise SourceNotFound(f"no source with id {source_id}")
        return _source(rows[0])

    def list_sources(self) -> list[SourceStats]:
        """Every source with its counts, time span and last sync, by title."""
        ids = [row[0] for row in self._query("SELECT id FROM sources ORDER BY title, id")]
        return [self.source_stats(source_id) for source_id in ids]

    def source_stats(self, source_id: int) -> SourceStats:
        """One source's non-service message count, time span and last sync."""
        source = self.get_source_by_id(source_id)
        count, first, last = self._query(
            "SELECT COUNT(*), MIN(posted_at), MAX(posted_at) FROM messages "
            "WHERE source_id = ? AND is_service = 0",
            (source_id,),
        )[0]
        synced_at, watermark = self._query(
            "SELECT last_synced_at, sync_watermark FROM sources WHERE id = ?", (source_id,)
        )[0]
        return SourceStats(
            source=source,
            message_count=count,
            first_message_at=_dt(first),
            last_message_at=_dt(last),
            last_synced_at=_dt(synced_at),
            last_synced_message_id=watermark,
            topics=tuple(self.list_topics(source_id)),
        )

    # Messages ----------------------------------------------------------------------------
    def upsert_messages(self, messages: Iterable[Message]) -> UpsertResult:
        """Insert new messages; replace a stored one only by a newer or equal edit.

        A message whose stored content is identical is left alone, so re-importing the
        same export changes nothing. A changed text drops the message's vectors.
        """
        inserted = updated = unchanged = 0
        with self.transaction():
            db = self._db
            for m in messages:
                new = (
                    _ts(m.posted_at),
                    _ts(m.edited_at),
                    m.sender_peer_id,
                    m.sender_name,
                    m.text,
                    m.reply_to,
                    int(m.is_service),
                    m.media,
                    m.forwarded_from,
                    m.topic_id,
                )
                old = db.execute(
                    "SELECT posted_at, edited_at, sender_peer_id, sender_name, text, reply_to, "
                    "is_service, media, forwarded_from, topic_id FROM messages "
                    "WHERE source_id = ? AND message_id = ?",
                    (m.source_id, m.messenger_message_id),
                ).fetchone()
                if old is None:
                    db.execute(
                        f"INSERT INTO messages ({_MSG_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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

    def count_messages(
        self,
        source_id: int,
        *,
        include_service: bool = False,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> int:
        """How many messages a source has (in one topic, from some senders, when given)."""
        where, params = self._filters(
            since=None,
            until=None,
            include_service=include_service,
            with_text_only=False,
            until_inclusive=False,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        sql = f"SELECT COUNT(*) FROM messages WHERE source_id = ?{where}"
        return int(self._query(sql, (source_id, *params))[0][0])

    @staticmethod
    def _filters(
        *,
        since: datetime | None,
        until: datetime | None,
        include_service: bool,
        with_text_only: bool,
        until_inclusive: bool,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if topic_id is not None:
            clauses.append("topic_id = ?")
            params.append(int(topic_id))
        if sender_peer_ids is not None:
            senders = list(dict.fromkeys(sender_peer_ids))
            clauses.append(f"sender_peer_id IN ({','.join('?' * len(senders)) or 'NULL'})")
            params.extend(senders)
        if since is not None:
            clauses.append("posted_at >= ?")
            # Stored times are whole seconds: round a bound with a fraction so that
            # "posted_at >= 12:03:00.5" does not take a message of 12:03:00.
            params.append(math.ceil(since.timestamp()))
        if until is not None:
            clauses.append("posted_at <= ?" if until_inclusive else "posted_at < ?")
            bound = until.timestamp()
            params.append(math.floor(bound) if until_inclusive else math.ceil(bound))
        if not include_service:
            clauses.append("is_service = 0")
        if with_text_only:
            clauses.append("text != ''")
        return "".join(f" AND {c}" for c in clauses), params

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
        where, params = self._filters(
            since=start,
            until=end,
            include_service=include_service,
            with_text_only=False,
            until_inclusive=False,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        sql = (
            f"SELECT {_MSG_COLUMNS} FROM messages WHERE source_id = ?{where} "
            "ORDER BY posted_at, message_id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_message(r) for r in self._query(sql, (source_id, *params))]

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
        where, params = self._filters(
            since=since,
            until=until,
            include_service=include_service,
            with_text_only=with_text_only,
            until_inclusive=True,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        rows = self._query(
            f"SELECT {_MSG_COLUMNS} FROM messages WHERE source_id = ?{where} "
            "ORDER BY posted_at DESC, message_id DESC LIMIT ?",
            (source_id, *params, int(limit)),
        )
        return [_message(r) for r in reversed(rows)]

    def neighbours(
        self, source_id: int, message_id: int, *, before: int = 2, after: int = 2
    ) -> tuple[list[Message], list[Message]]:
        """Up to ``before``/``after`` non-service messages around one, in posting order."""
        anchor = self._query(
            "SELECT posted_at FROM messages WHERE source_id = ? AND message_id = ?",
            (source_id, message_id),
        )
        if not anchor:
            return [], []
        posted = anchor[0][0]
        # Row values let SQLite walk the time index from the anchor (an OR of the two
        # conditions would scan the whole source: milliseconds per call at 10k messages).
        older = self._query(
            f"SELECT {_MSG_COLUMNS} FROM messages WHERE source_id = ? AND is_service = 0 "
            "AND (posted_at, message_id) < (?, ?) "
            "ORDER BY posted_at DESC, message_id DESC LIMIT ?",
            (source_id, posted, message_id, before),
        )
        newer = self._query(
            f"SELECT {_MSG_COLUMNS} FROM messages WHERE source_id = ? AND is_service = 0 "
            "AND (posted_at, message_id) > (?, ?) "
            "ORDER BY posted_at, message_id LIMIT ?",
            (source_id, posted, message_id, after),
        )
        return [_message(r) for r in reversed(older)], [_message(r) for r in newer]

    def get_messages(self, source_id: int, message_ids: Sequence[int]) -> list[Message]:
        """The messages with these ids, in posting order; unknown ids are skipped."""
        found: list[Message] = []
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        for start in range(0, len(ids), _IN_CHUNK):
            chunk = ids[start : start + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            found.extend(
                _message(r)
                for r in self._query(
                    f"SELECT {_MSG_COLUMNS} FROM messages "
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
                f"SELECT {_MSG_COLUMNS} FROM messages WHERE source_id = ? "
                "AND (posted_at > ? OR (posted_at = ? AND message_id > ?)) "
                "ORDER BY posted_at, message_id LIMIT ?",
                (source_id, last[0], last[0], last[1], batch_size),
            )
            if not rows:
                return
            for row in rows:
                yield _message(row)
            last = (rows[-1][2], rows[-1][1])

    # Forum topics ------------------------------------------------------------------------
    def upsert_topics(self, source_id: int, topics: Iterable[tuple[int, str]]) -> None:
        """Record forum topic titles (a later title replaces an earlier one).

        Once a source has topics it is a forum: its messages stored without a topic
        belong to General (id 1), which gets its title unless one was given.
        """
        rows = [(source_id, int(tid), title) for tid, title in topics]
        if not rows:
            return
        with self.transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO topics (source_id, topic_id, title) VALUES (?, ?, ?)",
                rows,
            )
            self._db.execute(
                "INSERT OR IGNORE INTO topics (source_id, topic_id, title) VALUES (?, ?, ?)",
                (source_id, GENERAL_TOPIC, "General"),
            )
            self._db.execute(
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
                _dt(counts.get(tid, (0, None))[1]),
            )
            for tid in sorted(set(titles) | set(counts))
        ]

    # Sync watermark ----------------------------------------------------------------------
    def get_watermark(self, source_id: int) -> int | None:
        """The highest message id a live sync has committed for a source."""
        rows = self._query("SELECT sync_watermark FROM sources WHERE id = ?", (source_id,))
        return rows[0][0] if rows else None

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        """Record sync progress; the watermark never moves backwards."""
        with self.transaction():
            self._db.execute(
                "UPDATE sources SET sync_watermark = MAX(COALESCE(sync_watermark, 0), ?), "
                "last_synced_at = ? WHERE id = ?",
                (message_id, _ts(synced_at), source_id),
            )

    # Vectors -----------------------------------------------------------------------------
    def get_vectors(
        self, source_id: int, message_ids: Sequence[int], model: str
    ) -> dict[int, Vector]:
        """Stored float32 vectors of ``model`` for these messages (missing ones absent)."""
        out: dict[int, Vector] = {}
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        for start in range(0, len(ids), _IN_CHUNK):
            chunk = ids[start : start + _IN_CHUNK]
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
        with self.transaction():
            self._db.executemany(
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
            f"SELECT {', '.join('m.' + c.strip() for c in _MSG_COLUMNS.split(','))} "
            "FROM messages m LEFT JOIN embeddings e ON e.source_id = m.source_id "
            "AND e.message_id = m.message_id AND e.model = ? "
            "WHERE m.source_id = ? AND m.is_service = 0 AND m.text != '' AND e.vector IS NULL "
            + (
                "ORDER BY m.posted_at DESC, m.message_id DESC"
                if newest_first
                else "ORDER BY m.posted_at, m.message_id"
            )
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_message(r) for r in self._query(sql, (model, source_id))]

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
        where, params = self._filters(
            since=since,
            until=until,
            include_service=False,
            with_text_only=True,
            until_inclusive=True,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        return self._query(
            f"SELECT message_id, posted_at, text FROM messages WHERE source_id = ?{where} "
            "ORDER BY posted_at DESC, message_id DESC LIMIT ?",
            (source_id, *params, int(limit)),
        )

    # API keys ----------------------------------------------------------------------------
    _KEY_COLUMNS = "id, name, prefix, key_hash, scopes, created_at, revoked_at, last_used_at"

    def add_api_key(
        self, *, name: str, prefix: str, key_hash: str, scopes: Iterable[str]
    ) -> ApiKeyRecord:
        """Store a new key's hash and scopes."""
        with self.transaction():
            cur = self._db.execute(
                "INSERT INTO api_keys (name, prefix, key_hash, scopes, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, prefix, key_hash, " ".join(sorted(set(scopes))), _ts(datetime.now(UTC))),
            )
            row = self._db.execute(
                f"SELECT {self._KEY_COLUMNS} FROM api_keys WHERE id = ?", (cur.lastrowid,)
            ).fetchone()
        return _key_record(row)

    def api_key_by_prefix(self, prefix: str) -> tuple[ApiKeyRecord, str] | None:
        """The key record with this prefix and its stored hash, or ``None``."""
        rows = self._query(f"SELECT {self._KEY_COLUMNS} FROM api_keys WHERE prefix = ?", (prefix,))
        return (_key_record(rows[0]), rows[0][3]) if rows else None

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, revoked ones included, oldest first."""
        return [
            _key_record(r)
            for r in self._query(f"SELECT {self._KEY_COLUMNS} FROM api_keys ORDER BY id")
        ]

    def revoke_api_key(self, id_or_prefix: str) -> ApiKeyRecord:
        """Revoke a key by numeric id or prefix; ``ApiKeyNotFound`` when none matches."""
        with self.transaction():
            field = "id" if id_or_prefix.isdigit() else "prefix"
            value: int | str = int(id_or_prefix) if field == "id" else id_or_prefix
            rows = self._db.execute(
                f"SELECT {self._KEY_COLUMNS} FROM api_keys WHERE {field} = ?", (value,)
            ).fetchall()
            if not rows:
                raise ApiKeyNotFound(f"no API key {id_or_prefix!r}")
            self._db.execute(
                "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
                (_ts(datetime.now(UTC)), rows[0][0]),
            )
            row = self._db.execute(
                f"SELECT {self._KEY_COLUMNS} FROM api_keys WHERE id = ?", (rows[0][0],)
            ).fetchone()
        return _key_record(row)

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        """Record a key's last use."""
        with self.transaction():
            self._db.execute(
                "UPDATE api_keys SET last_used_at = ? WHERE id = ?", (_ts(when), key_id)
            )

    # Cache -------------------------------------------------------------------------------
    def cache_get(self, key: str) -> str | None:
        """A cached value, or ``None``."""
        rows = self._query("SELECT value FROM cache WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def cache_put(self, key: str, value: str) -> None:
        """Store a cached value (replacing any old one)."""
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO cache (key, value, created_at) VALUES (?, ?, ?)",
                (key, value, _ts(datetime.now(UTC))),
            )
