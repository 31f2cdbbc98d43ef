"""Alerts, their posts and each destination's result: the store's part of
``toolkit.delivery.alerts``.

The lease (``claim_alert``) is the schedules' (``schedules.py``) over another row: one
transaction moves the alert's ``version`` from what the caller read (a compare-and-set:
of two workers that read the same alert, one moves it), writes its new watermarks and
held count, and inserts its posts under their unique key (alert, source, message).
SQLite runs it under ``BEGIN IMMEDIATE``; in PostgreSQL the second ``UPDATE`` waits
for the first's row lock and then finds the version moved. So each message is posted
once, across threads, processes and replicas; every later write of a post names its
``owner``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Unpack

from toolkit.store.alert_rows import (
    ALERT_COLUMNS,
    POST_COLUMNS,
    AlertClaim,
    AlertRecord,
    NewAlert,
    NewMessages,
    PostRecord,
    marks_text,
    to_alert,
    to_post,
)
from toolkit.store.connections import UsesConnections
from toolkit.store.results import PostLedger
from toolkit.store.rows import dt, ts


class _Lost(Exception):
    """A post's key was taken after the alert moved: undo the move."""


class Alerts(UsesConnections):
    """Alerts, their posts (leased like runs) and each destination's result."""

    def add_alert(self, new: NewAlert) -> AlertRecord:
        """Store an alert; return it with its id."""
        row = self.connections.write(
            "INSERT INTO delivery_alerts (query, source_refs, min_score, max_per_hour, "
            "destinations, created_at, version, watermarks, held) "
            f"VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0) RETURNING {ALERT_COLUMNS}",
            (
                new.query,
                new.source_refs,
                new.min_score,
                new.max_per_hour,
                new.destinations,
                ts(new.created_at),
                marks_text(new.watermarks),
            ),
        )[0]
        return to_alert(row)

    def list_alerts(self) -> list[AlertRecord]:
        """Every alert, oldest first."""
        rows = self.connections.read(f"SELECT {ALERT_COLUMNS} FROM delivery_alerts ORDER BY id")
        return [to_alert(r) for r in rows]

    def get_alert(self, alert_id: int) -> AlertRecord | None:
        """One alert, or ``None``."""
        rows = self.connections.read(
            f"SELECT {ALERT_COLUMNS} FROM delivery_alerts WHERE id = ?", (alert_id,)
        )
        return to_alert(rows[0]) if rows else None

    def remove_alert(self, alert_id: int) -> bool:
        """Remove an alert with its posts; whether there was one."""
        with self.connections.transaction():
            # Removed explicitly: an SQLite store opened without foreign keys keeps them.
            posts = "SELECT id FROM alert_posts WHERE alert_id = ?"
            self.connections.write(
                f"DELETE FROM alert_results WHERE run_id IN ({posts})", (alert_id,)
            )
            self.connections.write("DELETE FROM alert_posts WHERE alert_id = ?", (alert_id,))
            gone = self.connections.write(
                "DELETE FROM delivery_alerts WHERE id = ? RETURNING id", (alert_id,)
            )
        return bool(gone)

    def last_message_ids(self) -> dict[int, int]:
        """Per source id, its highest message id (sources without messages left out)."""
        rows = self.connections.read(
            "SELECT source_id, MAX(message_id) FROM messages GROUP BY source_id"
        )
        return {int(r[0]): int(r[1]) for r in rows}

    def messages_after(self, source_id: int, message_id: int) -> NewMessages:
        """A source's messages with an id above ``message_id`` (``NewMessages``)."""
        row = self.connections.read(
            "SELECT COUNT(*), MAX(message_id), MIN(posted_at) FROM messages "
            "WHERE source_id = ? AND message_id > ?",
            (source_id, message_id),
        )[0]
        count = int(row[0] or 0)
        if not count:
            return NewMessages(0, message_id, None, 0)
        # Ids follow posting time, mostly: an older message may have been posted later.
        window = self.connections.read(
            "SELECT COUNT(*) FROM messages WHERE source_id = ? AND posted_at >= ?",
            (source_id, row[2]),
        )[0][0]
        return NewMessages(count, int(row[1]), dt(row[2]), int(window))

    def claim_alert(self, alert_id: int, **claim: Unpack[AlertClaim]) -> list[PostRecord] | None:
        """Move the alert on from ``version`` (its watermarks and held count) and lease
        its new ``posts`` for ``owner``, in one transaction (``AlertClaim``).

        Returns:
            The new posts (status ``claimed``), or ``None`` when another worker moved the
            alert first (nothing is written).
        """
        lease = (claim["owner"], ts(claim["lease_until"]), ts(claim["now"]))
        try:
            with self.connections.transaction():
                moved = self.connections.write(
                    "UPDATE delivery_alerts SET version = version + 1, watermarks = ?, "
                    "held = ?, held_since = ? WHERE id = ? AND version = ? RETURNING id",
                    (
                        marks_text(claim["watermarks"]),
                        claim["held"],
                        ts(claim["held_since"]),
                        alert_id,
                        claim["version"],
                    ),
                )
                if not moved:
                    return None
                out = []
                for post in claim["posts"]:
                    rows = self.connections.write(
                        "INSERT INTO alert_posts (alert_id, source_id, message_id, body, "
                        "status, owner, lease_until, attempts, claimed_at) "
                        "VALUES (?, ?, ?, ?, 'claimed', ?, ?, 0, ?) ON CONFLICT "
                        f"(alert_id, source_id, message_id) DO NOTHING RETURNING {POST_COLUMNS}",
                        (alert_id, post.source_id, post.message_id, post.body, *lease),
                    )
                    if not rows:
                        raise _Lost
                    out.append(to_post(rows[0]))
                return out
        except _Lost:
            return None

    def posts_since(self, alert_id: int, since: datetime) -> int:
        """How many posts an alert claimed at or after ``since`` (its cap counts them)."""
        rows = self.connections.read(
            "SELECT COUNT(*) FROM alert_posts WHERE alert_id = ? AND claimed_at >= ?",
            (alert_id, ts(since)),
        )
        return int(rows[0][0])

    def recent_posts(self, alert_id: int, *, limit: int = 20) -> list[PostRecord]:
        """An alert's latest posts, newest first."""
        rows = self.connections.read(
            f"SELECT {POST_COLUMNS} FROM alert_posts WHERE alert_id = ? ORDER BY id DESC LIMIT ?",
            (alert_id, limit),
        )
        return [to_post(r) for r in rows]

    def get_post(self, post_id: int) -> PostRecord | None:
        """One post, or ``None``."""
        rows = self.connections.read(
            f"SELECT {POST_COLUMNS} FROM alert_posts WHERE id = ?", (post_id,)
        )
        return to_post(rows[0]) if rows else None

    def open_posts(self, now: datetime) -> list[PostRecord]:
        """Unfinished posts whose lease has run out, oldest first."""
        rows = self.connections.read(
            f"SELECT {POST_COLUMNS} FROM alert_posts WHERE status = 'claimed' "
            "AND lease_until <= ? ORDER BY id",
            (ts(now),),
        )
        return [to_post(r) for r in rows]

    def take_over_post(
        self, post_id: int, *, owner: str, lease_until: datetime, now: datetime
    ) -> PostRecord | None:
        """Lease an unfinished post whose lease has run out; ``None`` when it is
        finished or another worker holds it."""
        rows = self.connections.write(
            "UPDATE alert_posts SET owner = ?, lease_until = ? WHERE id = ? "
            f"AND status = 'claimed' AND lease_until <= ? RETURNING {POST_COLUMNS}",
            (owner, ts(lease_until), post_id, ts(now)),
        )
        return to_post(rows[0]) if rows else None

    def post_ledger(self) -> PostLedger:
        """The ledger of posts: their leases and each destination's result."""
        return PostLedger(self.connections, self.dialect)
