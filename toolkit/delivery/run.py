"""Carry one leased run to its end: the digest first (written once, kept in the run),
then each destination that has not had it.

The steps are recorded as they happen, so a worker that dies anywhere leaves a run the
next one finishes (``Runner`` takes it over once its lease runs out): a written digest
is never written again, a destination that has it is never sent it again. One
destination failing never stops the others; it is tried again later (its run waits,
leased till then) up to ``max_attempts`` times.

A worker that dies while sending leaves the destination's result ``sending``: the
attempt began and its outcome is unknown (the destination may have it). The next worker
sends it again only to a destination that drops a repeat (a webhook receiver, by its
``X-Mlens-Delivery`` header; a feed sends nothing); a Telegram chat or a mailbox would
show it twice, so there it is recorded ``uncertain`` and left for a person to resend
(``mlens schedule resend``, ``mlens alert resend``) unless
``MLENS_DELIVERY_RESEND_UNCERTAIN`` says to.

The steps after the digest (``send``, ``finish``, ``renew``) ask only a ``Ledger`` of the
store (``toolkit.store.base``): an alert's posts (``alerts``) are carried by the same
steps over their own ledger (``post_ledger``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from typing import Any, TypeVar

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter, DeliveryFailed, Digest, Post
from toolkit.delivery.model import Destination, Schedule
from toolkit.errors import ToolkitError
from toolkit.models import Summary
from toolkit.requests import SummaryRequest
from toolkit.store.base import Ledger
from toolkit.store.schedule_rows import Lease, ResultRecord, RunRecord
from toolkit.wire import SummaryOut, summary_out

log = logging.getLogger("toolkit.delivery")

Summarize = Callable[[SummaryRequest], Summary]
"""The Workspace's summary verb."""
Sync = Callable[[Schedule], None]
"""Fetch a schedule's source live before its digest (when live sync is configured)."""
Adapters = Callable[[Destination], Adapter]
"""The adapter of a destination (``destinations.adapter_for`` with the settings)."""
RESENDABLE = frozenset({"webhook", "feed"})
"""Kinds a repeat does no harm to: a webhook receiver drops it by its delivery id, a
feed sends nothing."""
UNCERTAIN = "the worker stopped while sending, so it may have arrived: not sent again unless resent"


L = TypeVar("L", bound=Lease)
"""A leased record the steps carry (a run, an alert's post)."""


@dataclass(frozen=True, slots=True)
class Source:
    """What a run needs of its source: its title and its zone."""

    title: str
    zone: tzinfo


@dataclass
class RunContext:
    """What every run of one runner shares."""

    store: Ledger
    settings: DeliverySettings
    summarize: Summarize
    adapters: Adapters
    clock: Callable[[], datetime]
    owner: str
    sync: Sync | None = None


def no_digest(_request: SummaryRequest) -> Summary:
    """The summary verb of a ``RunContext`` that carries an alert's posts: never called."""
    raise AssertionError("an alert writes no digest")


def carry(ctx: RunContext, run: RunRecord, schedule: Schedule, source: Source) -> RunRecord:
    """Write the run's digest unless it has one, deliver it where it has not gone, and
    record the outcome; the run as it ends up (``done``, ``failed``, or waiting to retry)."""
    if run.digest is None:
        written = _write(ctx, run, schedule)
        if written is None:
            return run
        run = written
    assert run.digest is not None
    summary = SummaryOut.model_validate_json(run.digest)
    return deliver(
        ctx, run, schedule.destinations, lambda i: digest_of(run, schedule, source, i, summary)
    )


def deliver(
    ctx: RunContext, record: L, destinations: Sequence[Destination], document: Callable[[int], Post]
) -> L:
    """Send ``document(index)`` to each destination that has not had it and has tries
    left (one whose last attempt's outcome is unknown only if a repeat does no harm:
    ``unknown_outcome``), then record the outcome (``finish``); the record as it ends up."""
    done = {r.destination: r for r in ctx.store.results([record.id])}
    for index, destination in enumerate(destinations):
        before = done.get(index)
        if before is not None and settled(ctx, before):
            continue
        if not renew(ctx, record):
            return record  # another worker has it now
        if unknown_outcome(ctx, record.id, index, destination, before):
            continue
        send(ctx, record.id, index, ctx.adapters(destination), document(index), before)
    return finish(ctx, record)


def _write(ctx: RunContext, run: RunRecord, schedule: Schedule) -> RunRecord | None:
    """The digest of the run's period, stored in the run; ``None`` when it failed (the
    run waits to retry, or has failed for good) or the lease was lost."""
    attempts = run.attempts + 1
    if ctx.sync is not None:
        try:
            ctx.sync(schedule)
        except ToolkitError as exc:  # the digest goes out over what is stored
            log.warning("schedule %s: sync before the digest failed: %s", schedule.id, exc)
    request = SummaryRequest(
        source_ref=schedule.source_ref,
        started_at=run.period_start,
        ended_at=run.period_end,
        language=schedule.language,
        engine=schedule.engine,
        topic_id=schedule.topic_id,
    )
    try:
        text = summary_out(ctx.summarize(request)).model_dump_json()
    except ToolkitError as exc:
        now = ctx.clock()
        final = attempts >= ctx.settings.max_attempts
        log.warning("schedule %s: the digest failed (try %s): %s", schedule.id, attempts, exc)
        ctx.store.update_run(
            run.id,
            owner=ctx.owner,
            lease_until=now + _backoff(ctx, attempts),
            status="failed" if final else None,
            attempts=attempts,
            error=f"digest: {exc}",
            finished_at=now if final else None,
        )
        return None
    if not ctx.store.update_run(
        run.id,
        owner=ctx.owner,
        lease_until=ctx.clock() + timedelta(seconds=ctx.settings.lease_seconds),
        status="written",
        attempts=attempts,
        digest=text,
    ):
        return None
    return _with(run, digest=text, status="written", attempts=attempts)


def send(
    ctx: RunContext,
    run_id: int,
    index: int,
    adapter: Adapter,
    digest: Post,
    before: ResultRecord | None,
) -> None:
    """Deliver to one destination, recording the attempt before and its outcome after."""
    attempts = (before.attempts if before is not None else 0) + 1
    ctx.store.set_result(
        run_id, index, state="sending", attempts=attempts, detail=None, now=ctx.clock()
    )
    try:
        detail = adapter.deliver(digest)
    except Exception as exc:  # one destination's fault never stops the others
        # An adapter says why in its DeliveryFailed; anything else is named by its type
        # alone, since a library's message may quote a URL with a bot token in it.
        why = str(exc) if isinstance(exc, DeliveryFailed) else f"{type(exc).__name__} (a bug?)"
        log.warning("run %s, destination %s: %s", run_id, index, why)
        ctx.store.set_result(
            run_id, index, state="failed", attempts=attempts, detail=why, now=ctx.clock()
        )
        return
    ctx.store.set_result(
        run_id, index, state="sent", attempts=attempts, detail=detail, now=ctx.clock()
    )


def finish(ctx: RunContext, run: L) -> L:
    """``done`` when every destination has it or has given up; else leased till the
    next try of those that wait."""
    now = ctx.clock()
    results = ctx.store.results([run.id])
    waiting = sum(1 for r in results if not settled(ctx, r))
    if waiting == 0:
        ctx.store.update_run(
            run.id, owner=ctx.owner, lease_until=now, status="done", finished_at=now
        )
        return _with(run, status="done", finished_at=now)
    tries = max(r.attempts for r in results if not settled(ctx, r))
    error = f"{waiting} destination(s) failed; next try in {_backoff(ctx, tries)}"
    ctx.store.update_run(
        run.id, owner=ctx.owner, lease_until=now + _backoff(ctx, tries), error=error
    )
    return _with(run, error=error)


def renew(ctx: RunContext, run: Lease) -> bool:
    """Extend the lease before a step; whether this worker still holds the run."""
    until = ctx.clock() + timedelta(seconds=ctx.settings.lease_seconds)
    return ctx.store.update_run(run.id, owner=ctx.owner, lease_until=until, error=run.error)


def spent(ctx: RunContext, result: ResultRecord) -> bool:
    """Whether a destination failed and has no tries left."""
    return result.state == "failed" and result.attempts >= ctx.settings.max_attempts


def settled(ctx: RunContext, result: ResultRecord) -> bool:
    """Whether a destination waits for nothing more: sent, uncertain (a person decides)
    or failed with no tries left."""
    return result.state in ("sent", "uncertain") or spent(ctx, result)


def unknown_outcome(
    ctx: RunContext, run_id: int, index: int, destination: Destination, before: ResultRecord | None
) -> bool:
    """Whether an attempt at a destination that cannot drop a repeat began and never
    recorded its outcome (its worker died mid-send); if so it is recorded ``uncertain``
    and not sent again."""
    if before is None or before.state != "sending" or destination.kind in RESENDABLE:
        return False
    if ctx.settings.resend_uncertain:
        return False
    log.warning("run %s, destination %s: %s", run_id, index, UNCERTAIN)
    ctx.store.set_result(
        run_id,
        index,
        state="uncertain",
        attempts=before.attempts,
        detail=UNCERTAIN,
        now=ctx.clock(),
    )
    return True


def _backoff(ctx: RunContext, attempts: int) -> timedelta:
    return timedelta(seconds=ctx.settings.retry_seconds * 2 ** max(0, min(attempts - 1, 10)))


def digest_of(
    run: RunRecord, schedule: Schedule, source: Source, index: int, summary: SummaryOut
) -> Digest:
    """The document a run hands its destination ``index``."""
    return Digest(
        schedule_id=schedule.id,
        run_id=run.id,
        destination=index,
        source_title=source.title,
        source_ref=schedule.source_ref,
        topic_id=schedule.topic_id,
        period_start=run.period_start,
        period_end=run.period_end,
        periods=run.periods,
        zone=source.zone,
        summary=summary,
    )


def _with(run: L, **changes: Any) -> L:
    return replace(run, **changes)
