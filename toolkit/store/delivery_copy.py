"""Schedules and alerts carried from one store to another (``copy.copy_store``: the
``mlens copy-store`` command, a PostgreSQL backup, every restore).

The rows travel as they are kept (times in Unix seconds, destinations' JSON with their
secrets) with their ids mapped: a source by its id in the target, a schedule, a run, an
alert and a post by the one they became there. The merge is idempotent: a schedule or an
alert already in the target (the same definition, made at the same time) is matched, not
doubled; there the later ``covered_until`` and the higher watermark of each source win,
so a copy never makes a period or a message due again; runs, posts and results the
target has (by their unique keys) are kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.store.alert_rows import ALERT_COLUMNS, POST_COLUMNS
from toolkit.store.connections import UsesConnections
from toolkit.store.schedule_rows import RESULT_COLUMNS, RUN_COLUMNS, SCHEDULE_COLUMNS

Row = tuple[Any, ...]
_TABLES = {
    "schedules": ("delivery_schedules", SCHEDULE_COLUMNS),
    "runs": ("delivery_runs", RUN_COLUMNS),
    "run_results": ("delivery_results", RESULT_COLUMNS),
    "alerts": ("delivery_alerts", ALERT_COLUMNS),
    "posts": ("alert_posts", POST_COLUMNS),
    "post_results": ("alert_results", RESULT_COLUMNS),
}


@dataclass(frozen=True, slots=True)
class DeliveryDump:
    """Every row of the schedules' and alerts' tables, by table (``_TABLES``' names)."""

    rows: Mapping[str, Sequence[Row]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DeliveryCopied:
    """What a merge added: schedules and alerts new to the target, and their runs and
    posts (those already there are not counted)."""

    schedules: int = 0
    alerts: int = 0
    runs: int = 0
    posts: int = 0


def _names(columns: str) -> list[str]:
    return [c.strip() for c in columns.split(",")]


class DeliveryRows(UsesConnections):
    """The store's schedules and alerts as rows, out (``delivery_dump``) and in
    (``delivery_merge``)."""

    def delivery_dump(self) -> DeliveryDump:
        """Every schedule, run, alert, post and result of the store, oldest first."""
        out = {}
        for name, (table, columns) in _TABLES.items():
            order = "run_id, destination" if name.endswith("results") else "id"
            rows = self.connections.read(f"SELECT {columns} FROM {table} ORDER BY {order}")
            out[name] = [tuple(r) for r in rows]
        return DeliveryDump(out)

    def delivery_merge(self, dump: DeliveryDump, sources: Mapping[int, int]) -> DeliveryCopied:
        """Merge ``dump`` into this store, in one transaction, its sources mapped by
        ``sources`` (old id → id here; a schedule or alert of a source not mapped is
        left out, and an alert's watermark of one too)."""
        with self.connections.transaction():
            schedules = self._schedules(dump.rows.get("schedules", ()), sources)
            runs = self._children("runs", dump, schedules.ids, key="schedule_id, period_end")
            self._results("delivery_results", dump.rows.get("run_results", ()), runs)
            alerts = self._alerts(dump.rows.get("alerts", ()), sources)
            posts = self._posts(dump.rows.get("posts", ()), alerts.ids, sources)
            self._results("alert_results", dump.rows.get("post_results", ()), posts)
        return DeliveryCopied(
            len(schedules.added), len(alerts.added), len(runs.added), len(posts.added)
        )

    def _insert(
        self, table: str, names: Sequence[str], values: Row, *, unique: str | None = None
    ) -> int | None:
        """Insert a row of ``names`` into ``table``: its new id, or ``None`` when the
        target has a row with the same ``unique`` key already."""
        places = ", ".join("?" for _ in names)
        keep = f"ON CONFLICT ({unique}) DO NOTHING " if unique else ""
        new = self.connections.write(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({places}) {keep}RETURNING id",
            values,
        )
        return new[0][0] if new else None

    def _schedules(self, rows: Sequence[Row], sources: Mapping[int, int]) -> _Mapped:
        columns = _names(SCHEDULE_COLUMNS)[1:]
        out = _Mapped()
        for row in rows:
            if row[1] not in sources:
                continue
            values = (sources[row[1]], *row[2:])
            same = " AND ".join(f"{c} {self.dialect.same} ?" for c in columns[:-1])
            found = self.connections.read(
                f"SELECT id, covered_until FROM delivery_schedules WHERE {same}", values[:-1]
            )
            if found:
                out.ids[row[0]] = found[0][0]
                if values[-1] is not None and (found[0][1] is None or found[0][1] < values[-1]):
                    self.connections.write(
                        "UPDATE delivery_schedules SET covered_until = ? WHERE id = ?",
                        (values[-1], found[0][0]),
                    )
                continue
            out.keep(row[0], self._insert("delivery_schedules", columns, values))
        return out

    def _alerts(self, rows: Sequence[Row], sources: Mapping[int, int]) -> _Mapped:
        columns = _names(ALERT_COLUMNS)[1:]
        out = _Mapped()
        for row in rows:
            marks = {
                str(sources[int(k)]): int(v)
                for k, v in json.loads(row[8]).items()
                if int(k) in sources
            }
            definition = row[1:7]  # query .. created_at
            same = " AND ".join(f"{c} {self.dialect.same} ?" for c in columns[:6])
            found = self.connections.read(
                f"SELECT id, watermarks FROM delivery_alerts WHERE {same}", definition
            )
            if found:
                there = json.loads(found[0][1])
                merged = {k: max(v, int(there.get(k, v))) for k, v in marks.items()}
                merged |= {k: int(v) for k, v in there.items() if k not in merged}
                self.connections.write(
                    "UPDATE delivery_alerts SET watermarks = ? WHERE id = ?",
                    (json.dumps(dict(sorted(merged.items()))), found[0][0]),
                )
                out.ids[row[0]] = found[0][0]
                continue
            values = (*definition, row[7], json.dumps(dict(sorted(marks.items()))), *row[9:])
            out.keep(row[0], self._insert("delivery_alerts", columns, values))
        return out

    def _children(
        self, name: str, dump: DeliveryDump, parents: Mapping[int, int], *, key: str
    ) -> _Mapped:
        table, columns = _TABLES[name]
        names = _names(columns)[1:]
        out = _Mapped()
        for row in dump.rows.get(name, ()):
            if row[1] not in parents:
                continue
            values = (parents[row[1]], *row[2:])
            out.keep(row[0], self._insert(table, names, values, unique=key))
        return out

    def _posts(
        self, rows: Sequence[Row], alerts: Mapping[int, int], sources: Mapping[int, int]
    ) -> _Mapped:
        names = _names(POST_COLUMNS)[1:]
        out = _Mapped()
        for row in rows:
            if row[1] not in alerts or (row[2] is not None and row[2] not in sources):
                continue
            source = sources[row[2]] if row[2] is not None else None
            values = (alerts[row[1]], source, *row[3:])
            if source is None:  # a note of held matches: no unique key, matched by content
                same = "alert_id = ? AND source_id IS NULL AND claimed_at = ? AND body = ?"
                if self.connections.read(
                    f"SELECT 1 FROM alert_posts WHERE {same}", (values[0], row[9], row[4])
                ):
                    continue
            unique = "alert_id, source_id, message_id"
            out.keep(row[0], self._insert("alert_posts", names, values, unique=unique))
        return out

    def _results(self, table: str, rows: Sequence[Row], parents: _Mapped) -> None:
        for row in rows:
            if row[0] in parents.ids:
                self.connections.write(
                    f"INSERT INTO {table} ({RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (run_id, destination) DO NOTHING",
                    (parents.ids[row[0]], *row[1:]),
                )


@dataclass
class _Mapped:
    """Rows written: old id → new id, and the new ids in order."""

    ids: dict[int, int] = field(default_factory=dict)
    added: list[int] = field(default_factory=list)

    def keep(self, old: int, new: int | None) -> None:
        """Map ``old`` to the row it became, when one was written (``new``)."""
        if new is not None:
            self.ids[old] = new
            self.added.append(new)
