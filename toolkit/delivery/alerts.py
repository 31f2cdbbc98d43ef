"""``AlertRunner``: new messages that match a saved search, posted once each, at most N
an hour (docs/delivery.md "Alerts").

One pass (``run_pending``) first finishes posts whose worker died or that wait to retry
a destination, then checks each alert (``check``):

1. its sources' messages above its watermarks are the new ones (a source it sees for
   the first time starts at its last message: its history is not news);
2. the alert's query is searched over them (``Workspace.search_all``: the hybrid
   ranking, its scan window the messages since the earliest new one), and the new
   messages scoring at least ``min_score`` match;
3. the best matches up to the hour's budget (``max_per_hour`` minus the posts of the
   last hour) become posts; the rest are counted (``held``) and the next post says how
   many (a post of the note alone once the budget allows, if no match comes);
4. the watermarks, the held count and the posts are claimed in one compare-and-set
   (``AlertStore.claim_alert``): of two workers that checked the same alert, one posts.

Each post is then carried as a schedule's run is (``run.deliver``): every
destination's result recorded before and after sending, a failing one tried again later
without blocking the others. The clock is injected, as for ``Runner``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from toolkit.config import DeliverySettings
from toolkit.delivery.alert_model import Alert
from toolkit.delivery.alert_post import AlertPost, Match, post_body
from toolkit.delivery.digest import Adapter
from toolkit.delivery.model import Destination
from toolkit.delivery.run import RunContext, deliver, no_digest
from toolkit.errors import StoreError, ToolkitError
from toolkit.limits import MAX_LIMIT, MAX_SCAN
from toolkit.models import Hits, Source
from toolkit.refs import parse_ref
from toolkit.requests import SearchAllRequest
from toolkit.store.alert_rows import NewPost, PostRecord
from toolkit.store.base import AlertStore, PostStore, SourceStore

log = logging.getLogger("toolkit.delivery")

Search = Callable[[SearchAllRequest], Hits]
"""The Workspace's search across sources."""
HOUR = timedelta(hours=1)


class AlertRunnerStore(AlertStore, PostStore, SourceStore, Protocol):
    """What an alert runner asks of the store: alerts and posts, and their sources."""


@dataclass(frozen=True, slots=True)
class _Fresh:
    """A source with new messages: its watermark, its highest id, its earliest time."""

    source: Source
    mark: int
    top: int
    window: int
    """Messages posted since the earliest new one (the scan that holds them all)."""
    oldest: datetime


class AlertRunner:
    """Posts the new matches of a store's alerts, each once.

    Args:
        store: the store the alerts live in.
        settings: the delivery settings (lease, retries, attempts).
        search: the Workspace's search across sources.
        adapters: a destination's adapter.
        clock: the time now, UTC.
        owner: this worker's name in its leases.
        max_scan: sources × scanned messages one check may search (the settings'
            ``MLENS_SEARCH_ALL_MAX_SCAN``).
    """

    def __init__(
        self,
        store: AlertRunnerStore,
        settings: DeliverySettings,
        *,
        search: Search,
        adapters: Callable[[Destination], Adapter],
        clock: Callable[[], datetime],
        owner: str,
        max_scan: int = 20_000,
    ) -> None:
        self.store = store
        self.search = search
        self.max_scan = max_scan
        self.ctx = RunContext(
            store=store.post_ledger(),
            settings=settings,
            summarize=no_digest,
            adapters=adapters,
            clock=clock,
            owner=owner,
        )

    def run_pending(self, only: int | None = None) -> list[PostRecord]:
        """One pass (of every alert, or of alert ``only``): finish the posts left to
        finish, then post each alert's new matches; the posts this pass carried."""
        carried = self.finish_open(only)
        for record in self.store.list_alerts():
            if only is None or record.id == only:
                carried += self.check(Alert.of(record))
        return carried

    def finish_open(self, alert: int | None = None) -> list[PostRecord]:
        """Take over and carry the posts whose lease has run out (of alert ``alert``
        when given); the posts carried."""
        carried: list[PostRecord] = []
        now = self.ctx.clock()
        for post in self.store.open_posts(now):
            if alert is not None and post.alert_id != alert:
                continue
            taken = self.store.take_over_post(
                post.id, owner=self.ctx.owner, lease_until=self._lease(), now=now
            )
            if taken is not None:
                carried += self._carry([taken])
        return carried

    def check(self, alert: Alert) -> list[PostRecord]:
        """Claim and carry the posts of an alert's new matches (none when another
        worker claimed them first, or the search failed: the next pass tries again)."""
        now = self.ctx.clock()
        marks, fresh = self._fresh(alert)
        try:
            matches = self._matches(alert, fresh)
        except ToolkitError as exc:
            log.warning("alert %s: the search failed: %s", alert.id, exc)
            return []
        budget = max(0, alert.max_per_hour - self.store.posts_since(alert.id, now - HOUR))
        best = sorted(matches, key=lambda m: -m.score)[:budget]
        chosen = sorted(best, key=lambda m: (m.posted_at, m.source_ref, m.messenger_message_id))
        held_new = len(matches) - len(chosen)
        held, since = alert.held, alert.held_since
        posts: list[NewPost] = []
        by_key = {f.source.key: f.source.id for f in fresh}
        for match in chosen:
            note = held if not posts else 0  # the first post says what was held back
            body = post_body(match, note, since if note else None)
            source_id = by_key[match.source_ref]
            message_id = int(match.messenger_message_id)
            posts.append(NewPost(source_id=source_id, message_id=message_id, body=body))
        if not posts and held and budget:  # the note alone, once the cap allows
            posts.append(
                NewPost(source_id=None, message_id=None, body=post_body(None, held, since))
            )
        if posts:
            held, since = 0, None
        if held_new:
            held, since = held + held_new, since or now
        if marks == alert.watermarks and not posts and held == alert.held:
            return []
        claimed = self.store.claim_alert(
            alert.id,
            version=alert.version,
            watermarks=marks,
            held=held,
            held_since=since,
            posts=posts,
            owner=self.ctx.owner,
            lease_until=self._lease(),
            now=now,
        )
        return self._carry(claimed or [], alert)

    def _fresh(self, alert: Alert) -> tuple[dict[int, int], list[_Fresh]]:
        """The alert's watermarks moved to each source's last message, and the sources
        with messages above their old one."""
        marks = dict(alert.watermarks)
        fresh = []
        last: dict[int, int] | None = None
        for source in self._sources(alert):
            mark = marks.get(source.id)
            if mark is None:  # first seen: its history is not news
                last = self.store.last_message_ids() if last is None else last
                marks[source.id] = last.get(source.id, 0)
                continue
            new = self.store.messages_after(source.id, mark)
            if new.count and new.oldest is not None:
                marks[source.id] = new.top
                fresh.append(_Fresh(source, mark, new.top, new.window, new.oldest))
        return marks, fresh

    def _matches(self, alert: Alert, fresh: Sequence[_Fresh]) -> list[Match]:
        """The new messages of ``fresh`` whose score reaches the alert's."""
        if not fresh:
            return []
        scan = min(MAX_SCAN, max(f.window for f in fresh), max(1, self.max_scan // len(fresh)))
        hits = self.search(
            SearchAllRequest(
                query=alert.query,
                source_refs=[f.source for f in fresh],
                limit=MAX_LIMIT,
                scan_messages_limit=scan,
                period_from=min(f.oldest for f in fresh),
            )
        )
        spans = {f.source.key: f for f in fresh}
        out = []
        for hit in hits:
            span = spans.get(hit.source_ref)
            if span is None or hit.score < alert.min_score:
                continue
            if span.mark < int(hit.messenger_message_id) <= span.top:
                out.append(Match.of(hit))
        return out

    def _sources(self, alert: Alert) -> list[Source]:
        if alert.source_refs is None:
            return [s.source for s in self.store.list_sources()]
        found = []
        for ref in alert.source_refs:
            source = self.store.find_source(parse_ref(ref))
            if source is None:
                log.warning("alert %s: its source %s is gone", alert.id, ref)
            else:
                found.append(source)
        return found

    def _carry(self, posts: Sequence[PostRecord], alert: Alert | None = None) -> list[PostRecord]:
        out = []
        for post in posts:
            owner = alert
            if owner is None:
                record = self.store.get_alert(post.alert_id)
                if record is None:
                    continue
                owner = Alert.of(record)
            try:
                out.append(self._deliver(post, owner))
            except StoreError as exc:  # the lease runs out; the next pass goes on
                log.warning("post %s of alert %s stopped: %s", post.id, owner.id, exc)
        return out

    def _deliver(self, post: PostRecord, alert: Alert) -> PostRecord:
        def document(index: int) -> AlertPost:
            return AlertPost.of(
                post, query=alert.query, max_per_hour=alert.max_per_hour, destination=index
            )

        return deliver(self.ctx, post, alert.destinations, document)

    def _lease(self) -> datetime:
        return self.ctx.clock() + timedelta(seconds=self.ctx.settings.lease_seconds)
