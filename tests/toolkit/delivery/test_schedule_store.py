"""Both stores: schedules, the lease of a period (claimed once, whoever asks), takeover
of a run whose lease ran out, results by destination, removal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from delivery_fakes import race
from delivery_rows import daily_feed_schedule
from store_backends import Store

from toolkit.models import Source
from toolkit.store.schedule_rows import RunRecord, ScheduleRecord

pytestmark = pytest.mark.both_stores

T0 = datetime(2024, 3, 1, 7, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def schedule(store: Store, team: Source) -> ScheduleRecord:
    return store.add_schedule(daily_feed_schedule(team.id, "@team_chat", T0 - DAY))


def claim(
    store: Store, schedule: ScheduleRecord, owner: str, covered: datetime | None, end: datetime
) -> RunRecord | None:
    return store.claim_period(
        schedule.id,
        covered_until=covered,
        start=end - DAY,
        end=end,
        periods=1,
        owner=owner,
        lease_until=end + timedelta(minutes=15),
        now=end,
    )


def test_a_schedule_is_stored_and_listed(store: Store, schedule: ScheduleRecord) -> None:
    assert store.list_schedules() == [schedule]
    assert store.get_schedule(schedule.id) == schedule
    assert schedule.covered_until is None
    assert schedule.created_at == T0 - DAY


def test_a_period_is_claimed_once(store: Store, schedule: ScheduleRecord) -> None:
    first = claim(store, schedule, "a", None, T0)
    assert first is not None
    assert first.status == "claimed"
    assert first.owner == "a"
    assert claim(store, schedule, "b", None, T0) is None  # b read the schedule before a moved it
    again = store.get_schedule(schedule.id)
    assert again is not None
    assert again.covered_until == T0
    assert claim(store, schedule, "b", T0, T0) is None  # the same key, never twice
    assert claim(store, schedule, "b", T0, T0 + DAY) is not None
    assert [r.period_end for r in store.runs(schedule.id)] == [T0 + DAY, T0]


def test_racing_threads_claim_once(store: Store, schedule: ScheduleRecord) -> None:
    claims = race(*(partial(claim, store, schedule, f"w{i}", None, T0) for i in range(6)))
    assert sum(run is not None for run in claims) == 1
    assert len(store.runs(schedule.id)) == 1


def test_only_the_owner_writes_and_a_lapsed_lease_is_taken_over(
    store: Store, schedule: ScheduleRecord
) -> None:
    run = claim(store, schedule, "a", None, T0)
    assert run is not None
    assert store.open_runs(T0) == []  # leased for 15 minutes
    assert not store.update_run(run.id, owner="b", lease_until=T0, status="done")
    later = T0 + timedelta(minutes=20)
    assert [r.id for r in store.open_runs(later)] == [run.id]
    taken = store.take_over_run(run.id, owner="b", lease_until=later + DAY, now=later)
    assert taken is not None
    assert taken.owner == "b"
    assert store.take_over_run(run.id, owner="c", lease_until=later, now=later) is None
    assert not store.update_run(run.id, owner="a", lease_until=later, digest="{}")
    assert store.update_run(run.id, owner="b", lease_until=later, status="written", digest="{}")
    assert store.update_run(run.id, owner="b", lease_until=later, status="done", finished_at=later)
    (done,) = store.runs(schedule.id)
    assert (done.status, done.digest, done.finished_at) == ("done", "{}", later)
    assert store.open_runs(later + DAY) == []


def test_results_by_destination_and_removal(store: Store, schedule: ScheduleRecord) -> None:
    run = claim(store, schedule, "a", None, T0)
    assert run is not None
    store.set_result(run.id, 1, state="sending", attempts=1, detail=None, now=T0)
    store.set_result(run.id, 0, state="sent", attempts=1, detail="ok", now=T0)
    store.set_result(run.id, 1, state="failed", attempts=1, detail="HTTP 500", now=T0)
    got = [(r.destination, r.state, r.detail) for r in store.results([run.id])]
    assert got == [(0, "sent", "ok"), (1, "failed", "HTTP 500")]
    assert store.remove_schedule(schedule.id)
    assert not store.remove_schedule(schedule.id)
    assert store.list_schedules() == []
    assert store.results([run.id]) == []
