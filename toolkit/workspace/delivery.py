"""Workspace verbs of digest schedules (``toolkit.delivery``): add, list, remove, run
now, the runner every face starts (``mlens serve``, ``mlens scheduler``), the Atom feed
and what ``/healthz`` says of failing destinations.

The runner writes each digest through this workspace's ``summarize``, and syncs a source
first when live sync is configured (``MLENS_MESSENGER_*``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from toolkit.delivery.adapters import adapter_for
from toolkit.delivery.alerts import AlertRunner
from toolkit.delivery.digest import Adapter
from toolkit.delivery.feed import atom_feed
from toolkit.delivery.model import Destination, Schedule, ScheduleSpec
from toolkit.delivery.out import ScheduleOut, schedule_out
from toolkit.delivery.run import digest_of
from toolkit.delivery.runner import Background, Runner, source_of, utc_now, worker_name
from toolkit.delivery.status import ScheduleStatus, new_schedule, schedule_status
from toolkit.errors import InvalidRequest, ScheduleNotFound
from toolkit.models import Summary
from toolkit.requests import AnySummaryRequest, check_filters
from toolkit.wire import SummaryOut
from toolkit.workspace.assembly import Assembly


class Delivery:
    """The schedule verbs of ``Workspace``."""

    assembly: Assembly
    summarize: Callable[[AnySummaryRequest], Summary]
    summary_languages: Callable[[str | None], tuple[str, ...]]
    sync: Callable[..., object]
    alert_runner: Callable[..., AlertRunner]

    def add_schedule(self, spec: ScheduleSpec, *, now: datetime | None = None) -> ScheduleOut:
        """Store a schedule of a stored source; its first digest is due at the rule's
        first time after ``now``.

        Raises:
            SourceNotFound: no such source in the store.
            InvalidRequest: a language the engine cannot write, a bad topic id.
        """
        source = self.assembly.source(spec.source_ref)
        check_filters(topic_id=spec.topic_id, sender_peer_ids=None)
        languages = self.summary_languages(spec.engine)
        if spec.language not in languages:
            raise InvalidRequest(
                f"the summary engine writes {', '.join(languages) or 'no language'}, "
                f"not {spec.language!r}",
                field="language",
            )
        record = self.assembly.store.add_schedule(new_schedule(spec, source, now or utc_now()))
        return self.schedule(record.id)

    def schedules(self) -> list[ScheduleOut]:
        """Every schedule with its last run and each destination's state."""
        return [schedule_out(s) for s in self._statuses()]

    def schedule(self, schedule_id: int) -> ScheduleOut:
        """One schedule (``ScheduleNotFound`` when there is none)."""
        return schedule_out(schedule_status(self.assembly.store, self._schedule(schedule_id)))

    def remove_schedule(self, schedule_id: int) -> None:
        """Remove a schedule and its runs (``ScheduleNotFound`` when there is none)."""
        if not self.assembly.store.remove_schedule(schedule_id):
            raise ScheduleNotFound(f"no schedule {schedule_id}")

    def run_schedule_now(self, schedule_id: int) -> ScheduleOut:
        """Deliver a schedule's digest now, of what came since its last one; the next
        scheduled digest follows on from here."""
        self.delivery_runner().run_now(self._schedule(schedule_id))
        return self.schedule(schedule_id)

    def resend_uncertain(self, schedule_id: int) -> ScheduleOut:
        """Send again, now, each destination of the schedule whose outcome is
        ``uncertain`` (its worker stopped mid-send; a person judged it did not arrive)."""
        self._schedule(schedule_id)
        runs = self.assembly.store.resend_uncertain(schedule_id, now=utc_now())
        if runs:
            self.delivery_runner().finish_open(runs)
        return self.schedule(schedule_id)

    def delivery_runner(
        self,
        *,
        clock: Callable[[], datetime] = utc_now,
        adapters: Callable[[Destination], Adapter] | None = None,
    ) -> Runner:
        """A runner of this workspace's schedules, checking its alerts on each pass of
        ``serve`` (tests give a clock and adapters)."""
        settings = self.assembly.settings
        owner = worker_name()
        return Runner(
            self.assembly.store,
            settings.delivery,
            summarize=self.summarize,
            adapters=adapters or (lambda d: adapter_for(d, settings.delivery)),
            sync=self._sync_first if settings.messenger.configured else None,
            clock=clock,
            owner=owner,
            alerts=self.alert_runner(clock=clock, adapters=adapters, owner=owner),
        )

    def start_delivery(self) -> Background:
        """Run due schedules on a thread until ``stop()`` (``mlens serve`` starts it)."""
        return Background(self.delivery_runner()).start()

    def schedule_feed(self, schedule_id: int, self_url: str) -> bytes:
        """The schedule's Atom feed: its delivered digests, newest first.

        Raises:
            ScheduleNotFound: no such schedule, or it has no feed destination.
        """
        schedule = self._schedule(schedule_id)
        feeds = [i for i, d in enumerate(schedule.destinations) if d.kind == "feed"]
        source = source_of(self.assembly.store, schedule)
        if not feeds or source is None:
            raise ScheduleNotFound(f"schedule {schedule_id} has no feed")
        store = self.assembly.store
        runs = {r.id: r for r in store.runs(schedule_id, limit=50) if r.digest is not None}
        entries = []
        for result in reversed(store.results(list(runs))):
            run = runs[result.run_id]
            if result.destination == feeds[0] and result.state == "sent" and run.digest:
                summary = SummaryOut.model_validate_json(run.digest)
                entry = digest_of(run, schedule, source, feeds[0], summary)
                entries.append((entry, result.updated_at))
        entries.sort(key=lambda e: e[0].period_end, reverse=True)
        return atom_feed(
            feed_id=f"urn:mlens:schedule:{schedule_id}",
            title=f"{source.title}: digests",
            self_url=self_url,
            digests=entries,
            updated=entries[0][1] if entries else schedule.created_at,
        )

    def delivery_failures(self) -> list[tuple[int, str, str, str]]:
        """``(schedule id, destination, state, why)`` of every destination whose last try
        failed (``failed``) or may not have arrived (``uncertain``)."""
        return [
            (s.schedule.id, d.label, d.state, d.detail or d.state)
            for s in self._statuses()
            for d in s.failing
        ]

    def _statuses(self) -> list[ScheduleStatus]:
        store = self.assembly.store
        return [schedule_status(store, Schedule.of(r)) for r in store.list_schedules()]

    def _schedule(self, schedule_id: int) -> Schedule:
        record = self.assembly.store.get_schedule(schedule_id)
        if record is None:
            raise ScheduleNotFound(f"no schedule {schedule_id}")
        return Schedule.of(record)

    def _sync_first(self, schedule: Schedule) -> None:
        from toolkit.workspace.data import messenger_client

        self.sync(schedule.source_ref, messenger_client(self.assembly.settings), embed=False)
