"""``Runner``: find what is due, lease it in the store, carry it (``run.carry``).

One pass (``run_pending``) first finishes runs whose worker died or that wait to retry a
destination (their lease has run out), then claims each schedule's due period
(``periods.due_period``: one digest for every boundary missed). Any number of runners
may pass at once, threads or processes or replicas on one store: each period is
claimed once (``ScheduleStore.claim_period``). ``serve`` passes until stopped
(``Background``: a thread with a clean stop).

``serve`` also checks the alerts (``alerts.AlertRunner``), on a thread of its own, when
the runner is given one.
The clock is injected (``clock()``: an aware UTC datetime), so tests move time by hand.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Collection
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter
from toolkit.delivery.model import Destination, Schedule
from toolkit.delivery.periods import due_period
from toolkit.delivery.run import RunContext, Source, Summarize, Sync, carry
from toolkit.errors import StoreError, ToolkitError
from toolkit.refs import parse_ref
from toolkit.store.base import ScheduleStore, SourceStore
from toolkit.store.schedule_rows import RunRecord
from toolkit.timeparse import zone_of

if TYPE_CHECKING:
    from toolkit.delivery.alerts import AlertRunner

log = logging.getLogger("toolkit.delivery")
ALERT_POLL = 30.0
"""The longest wait between two alert passes, whatever ``poll_seconds`` says."""


class RunnerStore(ScheduleStore, SourceStore, Protocol):
    """What a runner asks of the store: schedules and runs, and each schedule's source."""


def utc_now() -> datetime:
    """The real clock."""
    return datetime.now(UTC)


def worker_name() -> str:
    """This worker's name in the leases it holds: host, process, a random tail."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Runner:
    """Runs the due schedules of a store, each period once.

    Args:
        store: the store the schedules live in.
        settings: the delivery settings (lease, retries, attempts).
        summarize: the Workspace's summary verb (writes each digest).
        adapters: a destination's adapter.
        sync: fetch a schedule's source live first (``None``: no live sync configured).
        clock: the time now, UTC.
        owner: this worker's name in its leases.
        alerts: the alerts checked on every pass of ``serve`` (``None``: none).
    """

    def __init__(
        self,
        store: RunnerStore,
        settings: DeliverySettings,
        *,
        summarize: Summarize,
        adapters: Callable[[Destination], Adapter],
        sync: Sync | None = None,
        clock: Callable[[], datetime] = utc_now,
        owner: str | None = None,
        alerts: AlertRunner | None = None,
    ) -> None:
        self.store = store
        self.alerts = alerts
        self.ctx = RunContext(
            store=store,
            settings=settings,
            summarize=summarize,
            adapters=adapters,
            clock=clock,
            owner=owner or worker_name(),
            sync=sync,
        )

    def run_pending(self) -> list[RunRecord]:
        """One pass: finish the runs left to finish, then run what is due; the runs this
        pass carried."""
        carried = self.finish_open()
        for record in self.store.list_schedules():
            schedule = Schedule.of(record)
            source = self._source(schedule)
            if source is None:
                continue
            period = due_period(
                schedule.rule,
                source.zone,
                created_at=schedule.created_at,
                covered_until=schedule.covered_until,
                now=self.ctx.clock(),
            )
            if period is None:
                continue
            claimed = self.store.claim_period(
                schedule.id,
                covered_until=schedule.covered_until,
                start=period.start,
                end=period.end,
                periods=period.periods,
                owner=self.ctx.owner,
                lease_until=self._lease(),
                now=self.ctx.clock(),
            )
            if claimed is not None:
                carried += self._carry(claimed, schedule, source)
        return carried

    def finish_open(self, only: Collection[int] | None = None) -> list[RunRecord]:
        """Take over and carry the runs whose lease has run out (of ``only`` these ids
        when given); the runs carried."""
        carried: list[RunRecord] = []
        now = self.ctx.clock()
        for run in self.store.open_runs(now):
            if only is not None and run.id not in only:
                continue
            taken = self.store.take_over_run(
                run.id, owner=self.ctx.owner, lease_until=self._lease(), now=now
            )
            if taken is not None:
                carried += self._carry(taken)
        return carried

    def run_now(self, schedule: Schedule) -> RunRecord | None:
        """Deliver a schedule's digest now, of what came since its last one (or of the
        period before now when it has none); the next one follows on from here.
        ``None`` when another worker claimed meanwhile."""
        source = self._source(schedule)
        if source is None:
            return None
        now = self.ctx.clock()
        rule_step = timedelta(days=7 if schedule.rule.cadence == "weekly" else 1)
        start = schedule.covered_until or now - rule_step
        if start >= now:
            return None
        run = self.store.claim_period(
            schedule.id,
            covered_until=schedule.covered_until,
            start=start,
            end=now,
            periods=1,
            owner=self.ctx.owner,
            lease_until=self._lease(),
            now=now,
        )
        if run is None:
            return None
        carried = self._carry(run, schedule, source)
        return carried[0] if carried else None

    def serve(self, stop: threading.Event) -> None:
        """Pass every ``poll_seconds`` until ``stop`` is set (a pass under way finishes
        its current step first). Errors of a pass are logged and the next pass runs.

        The alerts pass on a thread of their own, at least every ``ALERT_POLL`` seconds:
        a digest that takes minutes to write never holds a match back past a minute. It
        returns only when that thread has ended too: whoever stopped it may close the
        store next, and a pass still reading it then would read a closed connection."""
        alerts: threading.Thread | None = None
        if self.alerts is not None:
            every = min(self.ctx.settings.poll_seconds, ALERT_POLL)
            args = (self.alerts.run_pending, every, stop, "alerts")
            alerts = threading.Thread(target=_loop, args=args, name="alert-runner", daemon=True)
            alerts.start()
        _loop(self.run_pending, self.ctx.settings.poll_seconds, stop, "delivery runner")
        if alerts is not None:
            alerts.join()

    def _carry(
        self, run: RunRecord, schedule: Schedule | None = None, source: Source | None = None
    ) -> list[RunRecord]:
        if schedule is None:
            record = self.store.get_schedule(run.schedule_id)
            if record is None:
                return []
            schedule = Schedule.of(record)
        source = source or self._source(schedule)
        if source is None:
            return []
        try:
            return [carry(self.ctx, run, schedule, source)]
        except StoreError as exc:
            # The lease runs out and the next pass (here or elsewhere) goes on from the
            # last step recorded.
            log.warning("run %s of schedule %s stopped: %s", run.id, schedule.id, exc)
            return []

    def _source(self, schedule: Schedule) -> Source | None:
        found = source_of(self.store, schedule)
        if found is None:
            log.warning("schedule %s: its source %s is gone", schedule.id, schedule.source_ref)
        return found

    def _lease(self) -> datetime:
        return self.ctx.clock() + timedelta(seconds=self.ctx.settings.lease_seconds)


def _loop(step: Callable[[], object], every: float, stop: threading.Event, what: str) -> None:
    while not stop.is_set():
        try:
            step()
        except (ToolkitError, OSError) as exc:
            log.warning("the %s' pass failed: %s", what, exc)
        stop.wait(every)


def source_of(store: SourceStore, schedule: Schedule) -> Source | None:
    """The title and zone of a schedule's source (``None`` when it is gone); UTC for a
    source with no zone or one this machine's database does not know."""
    found = store.find_source(parse_ref(schedule.source_ref))
    if found is None:
        return None
    try:
        zone = zone_of(found.timezone)
    except ToolkitError:
        zone = UTC
    return Source(title=found.title, zone=zone)


class Background:
    """A runner serving on a daemon thread; ``stop()`` ends it cleanly."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=runner.serve, args=(self._stop,), name="delivery-runner", daemon=True
        )

    def start(self) -> Background:
        """Start passing; returns itself."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask it to stop and wait up to ``timeout``; whether it stopped."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()
