"""The ledger of leased records (schedules' runs in ``delivery_runs``, alerts' posts in
``alert_posts``) and of what each destination came to (``delivery_results``,
``alert_results``: one row per record and destination), written and read the same way
for both (``base.Ledger``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar, Unpack

from toolkit.store.connections import Connections, UsesConnections
from toolkit.store.dialect import Dialect
from toolkit.store.rows import ts
from toolkit.store.schedule_rows import (
    RESULT_COLUMNS,
    Outcome,
    ResultRecord,
    RunChanges,
    RunStatus,
    to_result,
)


class LeaseLedger(UsesConnections):
    """A ``Ledger`` over one table of leased records and its table of results."""

    leased_table: ClassVar[str]
    results_table: ClassVar[str]
    parent_column: ClassVar[str]
    """The column of what a record belongs to (its schedule, its alert)."""
    open_status: ClassVar[RunStatus]
    """The status of a record that has destinations left to send to."""

    def update_run(
        self, run_id: int, *, owner: str, lease_until: datetime, **changes: Unpack[RunChanges]
    ) -> bool:
        """Write a record's lease and error and, when given, its status, tries, digest
        (runs alone have one) and end, if ``owner`` still holds it; whether it did."""
        error = changes.pop("error", None)
        columns: dict[str, object] = {"lease_until": ts(lease_until), "error": error}
        columns |= {
            column: ts(value) if isinstance(value, datetime) else value
            for column, value in changes.items()
            if value is not None
        }
        rows = self.connections.write(
            f"UPDATE {self.leased_table} SET {', '.join(f'{c} = ?' for c in columns)} "
            "WHERE id = ? AND owner = ? RETURNING id",
            (*columns.values(), run_id, owner),
        )
        return bool(rows)

    def set_result(self, run_id: int, destination: int, **outcome: Unpack[Outcome]) -> None:
        """Record what a destination of a record came to (replacing what it was)."""
        self.connections.write(
            f"INSERT INTO {self.results_table} ({RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (run_id, destination) DO UPDATE SET state = excluded.state, "
            "attempts = excluded.attempts, detail = excluded.detail, "
            "updated_at = excluded.updated_at",
            (
                run_id,
                destination,
                outcome["state"],
                outcome["attempts"],
                outcome["detail"],
                ts(outcome["now"]),
            ),
        )

    def results(self, run_ids: Sequence[int]) -> list[ResultRecord]:
        """The destinations' results of these records, by record and destination."""
        out: list[ResultRecord] = []
        for clause, params in self.dialect.id_lists("run_id", list(run_ids)):
            rows = self.connections.read(
                f"SELECT {RESULT_COLUMNS} FROM {self.results_table} WHERE {clause}", params
            )
            out += [to_result(r) for r in rows]
        return sorted(out, key=lambda r: (r.run_id, r.destination))

    def resend_uncertain(self, parent_id: int, *, now: datetime) -> list[int]:
        """Mark the ``uncertain`` destinations of ``parent_id``'s records to be sent again
        (``failed``, no try counted: a person judged it did not arrive) and open their
        finished records to the next pass at once; the records."""
        with self.connections.transaction():
            self.connections.write(
                f"UPDATE {self.leased_table} SET status = ?, finished_at = NULL, "
                f"lease_until = ? WHERE {self.parent_column} = ? AND status = 'done' AND id IN "
                f"(SELECT run_id FROM {self.results_table} WHERE state = 'uncertain')",
                (self.open_status, ts(now), parent_id),
            )
            rows = self.connections.write(
                f"UPDATE {self.results_table} SET state = 'failed', attempts = 0, detail = ?, "
                "updated_at = ? WHERE state = 'uncertain' AND run_id IN "
                f"(SELECT id FROM {self.leased_table} WHERE {self.parent_column} = ?) "
                "RETURNING run_id",
                ("to be sent again, as asked", ts(now), parent_id),
            )
        return sorted({r[0] for r in rows})


class PostLedger(LeaseLedger):
    """The ledger of alerts' posts (``Alerts.post_ledger``), over the store's connections."""

    leased_table = "alert_posts"
    results_table = "alert_results"
    parent_column = "alert_id"
    open_status = "claimed"

    def __init__(self, connections: Connections, dialect: Dialect) -> None:
        self.connections = connections
        self.dialect = dialect
