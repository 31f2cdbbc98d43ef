"""Workspace verbs of alerts (``toolkit.delivery.alerts``): add, list, remove, run now,
resend what may not have arrived, the runner every delivery runner carries, and the
check after new messages land (``after_ingest``: a sync or an import posts its matches
at once)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from toolkit.delivery.adapters import adapter_for
from toolkit.delivery.alert_model import Alert, AlertRequest, new_alert
from toolkit.delivery.alert_out import AlertOut, alert_out
from toolkit.delivery.alerts import AlertRunner
from toolkit.delivery.digest import Adapter
from toolkit.delivery.model import Destination
from toolkit.delivery.runner import utc_now, worker_name
from toolkit.errors import AlertNotFound, ToolkitError
from toolkit.models import Hits
from toolkit.requests import SearchAllRequest
from toolkit.workspace.assembly import Assembly

log = logging.getLogger("toolkit.delivery")


class Alerting:
    """The alert verbs of ``Workspace``."""

    assembly: Assembly
    search_all: Callable[[SearchAllRequest], Hits]

    def add_alert(self, request: AlertRequest, *, now: datetime | None = None) -> AlertOut:
        """Store an alert; messages that land after it (above each source's last
        message now) are its news.

        Raises:
            SourceNotFound: a named source the store does not have (404 over HTTP, as
                for a search or a schedule).
        """
        store = self.assembly.store
        if request.source_refs is None:
            covered = [s.source.id for s in store.list_sources()]
        else:
            covered = [self.assembly.source(ref).id for ref in request.source_refs]
        last = store.last_message_ids()
        marks = {source_id: last.get(source_id, 0) for source_id in covered}
        record = store.add_alert(new_alert(request, now=now or utc_now(), watermarks=marks))
        return self.alert(record.id)

    def alerts(self) -> list[AlertOut]:
        """Every alert with its latest post and each destination's state."""
        return [self._out(Alert.of(r)) for r in self.assembly.store.list_alerts()]

    def alert(self, alert_id: int) -> AlertOut:
        """One alert (``AlertNotFound`` when there is none)."""
        return self._out(self._alert(alert_id))

    def remove_alert(self, alert_id: int) -> None:
        """Remove an alert and its posts (``AlertNotFound`` when there is none)."""
        if not self.assembly.store.remove_alert(alert_id):
            raise AlertNotFound(f"no alert {alert_id}")

    def run_alert_now(self, alert_id: int) -> AlertOut:
        """Check one alert now: post its new matches (within its cap)."""
        self._alert(alert_id)
        self.alert_runner().run_pending(only=alert_id)
        return self.alert(alert_id)

    def resend_alert_uncertain(self, alert_id: int) -> AlertOut:
        """Post again, now, each destination of the alert's posts whose outcome is
        ``uncertain`` (its worker stopped mid-send; a person judged it did not arrive)."""
        self._alert(alert_id)
        store = self.assembly.store
        if store.post_ledger().resend_uncertain(alert_id, now=utc_now()):
            self.alert_runner().finish_open(alert_id)
        return self.alert(alert_id)

    def alert_runner(
        self,
        *,
        clock: Callable[[], datetime] = utc_now,
        adapters: Callable[[Destination], Adapter] | None = None,
        owner: str | None = None,
    ) -> AlertRunner:
        """A runner of this workspace's alerts (tests give a clock and adapters)."""
        settings = self.assembly.settings
        return AlertRunner(
            self.assembly.store,
            settings.delivery,
            search=self.search_all,
            adapters=adapters or (lambda d: adapter_for(d, settings.delivery)),
            clock=clock,
            owner=owner or worker_name(),
            max_scan=settings.search.all_max_scan,
        )

    def alert_failures(self) -> list[tuple[int, str, str, str]]:
        """``(alert id, destination, state, why)`` of every destination whose last post
        failed (``failed``) or may not have arrived (``uncertain``)."""
        return [
            (a.id, d.label, d.state, d.detail or d.state)
            for a in self.alerts()
            for d in a.destinations
            if d.state in ("failed", "uncertain")
        ]

    def after_ingest(self) -> None:
        """Check every alert now that new messages have landed (a sync, an import); a
        failure is logged and never fails what landed them (the runner tries again)."""
        if not self.assembly.store.list_alerts():
            return
        try:
            self.alert_runner().run_pending()
        except (ToolkitError, OSError) as exc:
            log.warning("alerts after new messages failed: %s", exc)

    def _out(self, alert: Alert) -> AlertOut:
        store = self.assembly.store
        recent = store.posts_since(alert.id, utc_now() - timedelta(hours=1))
        return alert_out(store, alert, posts_last_hour=recent)

    def _alert(self, alert_id: int) -> Alert:
        record = self.assembly.store.get_alert(alert_id)
        if record is None:
            raise AlertNotFound(f"no alert {alert_id}")
        return Alert.of(record)
