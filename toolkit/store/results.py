"""What each destination of a delivery came to, for schedules' runs
(``delivery_results``) and alerts' posts (``alert_results``): one row per run or post
and destination, written and read the same way for both."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from toolkit.store.connections import UsesConnections
from toolkit.store.rows import ts
from toolkit.store.schedule_rows import RESULT_COLUMNS, ResultRecord, ResultState, to_result

ResultTable = Literal["delivery_results", "alert_results"]
"""The tables of destination results."""


class DeliveryResults(UsesConnections):
    """Writes and reads destination results in either table."""

    def _put_result(
        self,
        table: ResultTable,
        key: tuple[int, int],
        *,
        state: ResultState,
        attempts: int,
        detail: str | None,
        now: datetime,
    ) -> None:
        """Record what destination ``key[1]`` of run or post ``key[0]`` came to
        (replacing what it was)."""
        self.connections.write(
            f"INSERT INTO {table} ({RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (run_id, destination) DO UPDATE SET state = excluded.state, "
            "attempts = excluded.attempts, detail = excluded.detail, "
            "updated_at = excluded.updated_at",
            (*key, state, attempts, detail, ts(now)),
        )

    def _results_of(self, table: ResultTable, ids: Sequence[int]) -> list[ResultRecord]:
        """The destinations' results of these runs or posts, by id and destination."""
        out: list[ResultRecord] = []
        for clause, params in self.dialect.id_lists("run_id", list(ids)):
            rows = self.connections.read(
                f"SELECT {RESULT_COLUMNS} FROM {table} WHERE {clause}", params
            )
            out += [to_result(r) for r in rows]
        return sorted(out, key=lambda r: (r.run_id, r.destination))
