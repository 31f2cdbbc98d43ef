"""Bulk upserts into PostgreSQL: ``COPY`` into a staging table, then one publishing statement.

A batch of messages is streamed with ``COPY`` into a session-local staging table (no
locks on ``messages`` while the data travels), then one statement classifies every
staged row against the stored one and inserts the new ones, updates the changed ones
and drops the vectors of changed texts. The caller's transaction makes it all or
nothing, exactly like the SQLite store: same rules, same counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import psycopg

from toolkit.models import Message, UpsertResult
from toolkit.store.rows import MSG_COLUMNS, content_values

CONTENT = (
    "posted_at, edited_at, sender_peer_id, sender_name, text, reply_to, is_service, media, "
    "forwarded_from, topic_id"
)

# ON COMMIT DELETE ROWS: a pooled connection never carries one import's rows into the next.
_STAGING = """
CREATE TEMP TABLE IF NOT EXISTS staged_messages
    (LIKE messages INCLUDING DEFAULTS) ON COMMIT DELETE ROWS
"""


def outcome(old: str, new: str) -> str:
    """The ``CASE`` that classifies row ``new`` against stored row ``old`` (absent when
    its ``message_id`` is null): 'inserted', 'unchanged' (same content, or ``old`` is a
    later edit) or 'updated'; the rules of the SQLite store."""
    same = (
        f"({', '.join(f'{old}.{c}' for c in CONTENT.split(', '))}) "
        f"IS NOT DISTINCT FROM ({', '.join(f'{new}.{c}' for c in CONTENT.split(', '))})"
    )
    return (
        f"CASE WHEN {old}.message_id IS NULL THEN 'inserted' "
        f"WHEN {same} OR COALESCE({old}.edited_at, 0) > COALESCE({new}.edited_at, 0) "
        "THEN 'unchanged' ELSE 'updated' END"
    )


PUBLISH = f"""
WITH classified AS (
    SELECT s.*,
        {outcome("m", "s")} AS outcome,
        m.text IS DISTINCT FROM s.text AS text_changed
    FROM {{table}} s
    LEFT JOIN messages m ON m.source_id = s.source_id AND m.message_id = s.message_id
),
inserted AS (
    INSERT INTO messages ({MSG_COLUMNS})
    SELECT {MSG_COLUMNS} FROM classified WHERE outcome = 'inserted'
    ON CONFLICT (source_id, message_id) DO NOTHING
),
updated AS (
    UPDATE messages m SET ({CONTENT}) = ({", ".join("c." + c for c in CONTENT.split(", "))})
    FROM classified c
    WHERE c.outcome = 'updated' AND m.source_id = c.source_id AND m.message_id = c.message_id
),
dropped AS (
    DELETE FROM embeddings e USING classified c
    WHERE c.outcome = 'updated' AND c.text_changed
      AND e.source_id = c.source_id AND e.message_id = c.message_id
)
SELECT
    COUNT(*) FILTER (WHERE outcome = 'inserted'),
    COUNT(*) FILTER (WHERE outcome = 'updated'),
    COUNT(*) FILTER (WHERE outcome = 'unchanged')
FROM classified
"""


def message_values(m: Message) -> tuple[Any, ...]:
    """A message's row of ``MSG_COLUMNS``."""
    return (m.source_id, m.messenger_message_id, *content_values(m))


def rounds(messages: Iterable[Message]) -> list[list[tuple[Any, ...]]]:
    """Rows in rounds where each (source, message id) appears at most once.

    One statement cannot touch a row twice; a batch that repeats a message (rare) is
    published round after round, so every copy counts exactly as it does in SQLite.
    """
    out: list[list[tuple[Any, ...]]] = []
    seen: dict[tuple[int, int], int] = {}
    for m in messages:
        row = message_values(m)
        key = (row[0], row[1])
        index = seen.get(key, 0)
        seen[key] = index + 1
        if index == len(out):
            out.append([])
        out[index].append(row)
    return out


def publish_messages(conn: psycopg.Connection, messages: Iterable[Message]) -> UpsertResult:
    """Stage ``messages`` with COPY and publish them; run inside the caller's transaction."""
    total = UpsertResult()
    batches = rounds(messages)
    if batches:
        conn.execute(_STAGING)  # type: ignore[call-overload]
    for rows in batches:
        with conn.cursor() as cur:
            with cur.copy(f"COPY staged_messages ({MSG_COLUMNS}) FROM STDIN") as copy:  # type: ignore[arg-type]
                for row in rows:
                    copy.write_row(row)
            counts = cur.execute(PUBLISH.format(table="staged_messages")).fetchone()  # type: ignore[arg-type]
            cur.execute("TRUNCATE staged_messages")
        assert counts is not None
        total += UpsertResult(int(counts[0]), int(counts[1]), int(counts[2]))
    return total
