"""Digest schedules, their runs and results: the store's part of ``toolkit.delivery``.

The lease (``claim_period``) is one transaction that moves the schedule's
``covered_until`` from what the caller read to the period's end (a compare-and-set:
of two workers that read the same value, one moves it) and inserts the run under its
unique key (schedule, period end). SQLite runs it under ``BEGIN IMMEDIATE`` (one writer
at a time); in PostgreSQL the second ``UPDATE`` waits for the first's row lock and then
finds the value moved. Either way a period is claimed once, across threads, processes
and replicas. Every later write of a run names its ``owner``: a worker whose lease was
taken over writes nothing more.
"""

from __future__ import annotations

from datetime import datetime
from typing import Unpack

from toolkit.store.results import LeaseLedger
from toolkit.store.rows import ts
from toolkit.store.schedule_rows import (
    RUN_COLUMNS,
    SCHEDULE_COLUMNS,
    NewSchedule,
    PeriodClaim,
    RunRecord,
    ScheduleRecord,
    to_run,
    to_schedule,
)


class _Lost(Exception):
    """The run's key was taken after the schedule moved: undo the move."""


class Schedules(LeaseLedger):
    """Schedules, runs (the leases of periods) and each destination's result (the
    ``LeaseLedger`` of runs)."""

    leased_table = "delivery_runs"
    results_table = "delivery_results"
    parent_column = "schedule_id"
    open_status = "written"  # a run with a result has its digest

    # Schedules ---------------------------------------------------------------------------
    def add_schedule(self, new: NewSchedule) -> ScheduleRecord:
        """Store a schedule; return it with its id."""
        row = self.connections.write(
            "INSERT INTO delivery_schedules (source_id, source_ref, topic_id, cadence, "
            "at_minute, weekday, language, engine, destinations, created_at) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {SCHEDULE_COLUMNS}",
            (
                new.source_id,
                new.source_ref,
                new.topic_id,
                new.cadence,
                new.at_minute,
                new.weekday,
                new.language,
                new.engine,
                new.destinations,
                ts(new.created_at),
            ),
        )[0]
        return to_schedule(row)

    def list_schedules(self) -> list[ScheduleRecord]:
        """Every schedule, oldest first."""
        rows = self.connections.read(
            f"SELECT {SCHEDULE_COLUMNS} FROM delivery_schedules ORDER BY id"
        )
        return [to_schedule(r) for r in rows]

    def get_schedule(self, schedule_id: int) -> ScheduleRecord | None:
        """One schedule, or ``None``."""
        rows = self.connections.read(
            f"SELECT {SCHEDULE_COLUMNS} FROM delivery_schedules WHERE id = ?", (schedule_id,)
        )
        return to_schedule(rows[0]) if rows else None

    def remove_schedule(self, schedule_id: int) -> bool:
        """Remove a schedule with its runs; whether there was one."""
        with self.connections.transaction():
            # Removed explicitly: an SQLite store opened without foreign keys keeps them.
            runs = "SELECT id FROM delivery_runs WHERE schedule_id = ?"
            self.connections.write(
                f"DELETE FROM delivery_results WHERE run_id IN ({runs})", (schedule_id,)
            )
            self.connections.write(
                "DELETE FROM delivery_runs WHERE schedule_id = ?", (schedule_id,)
            )
            gone = self.connections.write(
                "DELETE FROM delivery_schedules WHERE id = ? RETURNING id", (schedule_id,)
            )
        return bool(gone)

    # Runs --------------------------------------------------------------------------------
    def claim_period(self, schedule_id: int, **claim: Unpack[PeriodClaim]) -> RunRecord | None:
        """Lease the period ``[start, end)`` of a schedule for ``owner`` (``PeriodClaim``).

        Returns:
            The new run (status ``claimed``), or ``None`` when another worker has it.
        """
        end = ts(claim["end"])
        try:
            with self.connections.transaction():
                moved = self.connections.write(
                    "UPDATE delivery_schedules SET covered_until = ? "
                    f"WHERE id = ? AND covered_until {self.dialect.same} ? RETURNING id",
                    (end, schedule_id, ts(claim["covered_until"])),
                )
                if not moved:
                    return None
                rows = self.connections.write(
                    "INSERT INTO delivery_runs (schedule_id, period_start, period_end, periods, "
                    "status, owner, lease_until, attempts, claimed_at) "
                    "VALUES (?, ?, ?, ?, 'claimed', ?, ?, 0, ?) "
                    f"ON CONFLICT (schedule_id, period_end) DO NOTHING RETURNING {RUN_COLUMNS}",
                    (
                        schedule_id,
                        ts(claim["start"]),
                        end,
                        claim["periods"],
                        claim["owner"],
                        ts(claim["lease_until"]),
                        ts(claim["now"]),
                    ),
                )
                if not rows:
                    raise _Lost
                return to_run(rows[0])
        except _Lost:
            return None

    def take_over_run(
        self, run_id: int, *, owner: str, lease_until: datetime, now: datetime
    ) -> RunRecord | None:
        """Lease an unfinished run whose lease has run out (its worker died or waits to
        retry); ``None`` when it is finished or another worker holds it."""
        rows = self.connections.write(
            "UPDATE delivery_runs SET owner = ?, lease_until = ? WHERE id = ? "
            f"AND status IN ('claimed', 'written') AND lease_until <= ? RETURNING {RUN_COLUMNS}",
            (owner, ts(lease_until), run_id, ts(now)),
        )
        return to_run(rows[0]) if rows else None

    def open_runs(self, now: datetime) -> list[RunRecord]:
        """Unfinished runs whose lease has run out, oldest first."""
        rows = self.connections.read(
            f"SELECT {RUN_COLUMNS} FROM delivery_runs WHERE status IN ('claimed', 'written') "
            "AND lease_until <= ? ORDER BY id",
            (ts(now),),
        )
        return [to_run(r) for r in rows]

    def runs(self, schedule_id: int, *, limit: int = 20) -> list[RunRecord]:
        """A schedule's latest runs, newest period first."""
        rows = self.connections.read(
            f"SELECT {RUN_COLUMNS} FROM delivery_runs WHERE schedule_id = ? "
            "ORDER BY period_end DESC LIMIT ?",
            (schedule_id, limit),
        )
        return [to_run(r) for r in rows]
