"""The runner over an SQLite file: on time with a clock moved by hand, each period
once across workers (threads and processes), a crash between the digest and its
delivery, a restart after missed days, and a failing destination that blocks nobody."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, time
from functools import partial
from pathlib import Path

import pytest
from delivery_fakes import Clock, FakeSummaries, Recorder, race, race_worker

from toolkit.config import DeliverySettings
from toolkit.delivery.model import Schedule, ScheduleSpec, parse_destinations
from toolkit.delivery.periods import Rule
from toolkit.delivery.runner import Background, Runner
from toolkit.delivery.status import new_schedule, schedule_status
from toolkit.models import SourceKind
from toolkit.store import SQLiteStore

# The source's zone is +03:00: the 08:00 digest is due at 05:00 UTC.
CREATED = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
FIRST_DUE = datetime(2024, 3, 2, 5, 0, tzinfo=UTC)
DESTINATIONS = [{"kind": "feed"}, {"kind": "webhook", "url": "http://127.0.0.1:1/", "secret": "s"}]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(db)
    yield opened
    opened.close()


@pytest.fixture
def schedule(store: SQLiteStore) -> Schedule:
    source = store.upsert_source(
        title="Team", kind=SourceKind.CHAT, handle="team_chat", timezone="+03:00"
    )
    spec = ScheduleSpec(
        source_ref="@team_chat",
        rule=Rule("daily", time(8, 0)),
        destinations=parse_destinations(DESTINATIONS),
    )
    return Schedule.of(store.add_schedule(new_schedule(spec, source, CREATED)))


def runner(
    store: SQLiteStore, clock: Clock, recorder: Recorder, summaries: FakeSummaries, **settings: int
) -> Runner:
    return Runner(
        store,
        DeliverySettings(**settings),
        summarize=summaries,
        adapters=recorder.adapters([]),
        clock=clock,
    )


def test_nothing_before_the_time_then_one_digest_on_time(
    store: SQLiteStore, schedule: Schedule
) -> None:
    clock, recorder, summaries = Clock(CREATED), Recorder(), FakeSummaries()
    worker = runner(store, clock, recorder, summaries)
    assert worker.run_pending() == []
    clock.now = FIRST_DUE
    clock.advance(seconds=-1)
    assert worker.run_pending() == []
    clock.now = FIRST_DUE
    (run,) = worker.run_pending()
    assert run.status == "done"
    assert (run.period_start, run.period_end) == (datetime(2024, 3, 1, 5, tzinfo=UTC), FIRST_DUE)
    assert sorted(recorder.sent.values()) == [1, 1]
    assert summaries.calls[0].started_at == run.period_start
    assert worker.run_pending() == []  # the same period never again
    clock.advance(hours=23, minutes=59)
    assert worker.run_pending() == []
    clock.advance(minutes=1)
    assert len(worker.run_pending()) == 1
    assert len(recorder.sent) == 4


def test_two_workers_racing_deliver_each_period_once(
    store: SQLiteStore, db: Path, schedule: Schedule
) -> None:
    clock, recorder, summaries = Clock(FIRST_DUE), Recorder(), FakeSummaries()
    stores = [SQLiteStore(db) for _ in range(4)]

    def work(s: SQLiteStore) -> None:
        runner(s, clock, recorder, summaries).run_pending()

    race(*(partial(work, s) for s in stores))
    for s in stores:
        s.close()
    assert set(recorder.sent.values()) == {1}
    assert len(recorder.sent) == 2
    assert len(summaries.calls) == 1


@pytest.mark.slow
def test_worker_processes_racing_on_one_file_deliver_once(
    store: SQLiteStore, db: Path, schedule: Schedule, tmp_path: Path
) -> None:
    out, ready = tmp_path / "deliveries.txt", tmp_path / "go"
    ctx = multiprocessing.get_context("spawn")
    args = (str(db), FIRST_DUE.isoformat(), str(out), str(ready))
    procs = [ctx.Process(target=race_worker, args=args) for _ in range(3)]
    for p in procs:
        p.start()
    ready.touch()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    lines = out.read_text().splitlines()
    assert sorted(line.split()[2] for line in lines) == ["0", "1"]
    assert len({line.split()[1] for line in lines}) == 1


class Crash(BaseException):
    """The process dies here."""


def test_a_crash_between_digest_and_delivery_is_finished_once_by_the_next_worker(
    store: SQLiteStore, schedule: Schedule, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock, recorder, summaries = Clock(FIRST_DUE), Recorder(), FakeSummaries()
    first = runner(store, clock, recorder, summaries)

    def crash(*_args: object) -> None:
        raise Crash

    monkeypatch.setattr("toolkit.delivery.run.send", crash)
    with pytest.raises(Crash):
        first.run_pending()
    monkeypatch.undo()
    (run,) = store.runs(schedule.id)
    assert run.status == "written"
    assert run.digest is not None
    assert recorder.sent == {}
    restarted = runner(store, clock, recorder, summaries)
    assert restarted.run_pending() == []  # the dead worker's lease still holds
    clock.advance(seconds=DeliverySettings().lease_seconds)
    (finished,) = restarted.run_pending()
    assert finished.status == "done"
    assert set(recorder.sent.values()) == {1}
    assert len(recorder.sent) == 2
    assert len(summaries.calls) == 1  # the digest was written once


def test_a_restart_after_missed_days_sends_one_digest_of_them_all(
    store: SQLiteStore, schedule: Schedule
) -> None:
    clock, recorder, summaries = Clock(FIRST_DUE), Recorder(), FakeSummaries()
    runner(store, clock, recorder, summaries).run_pending()
    clock.advance(days=3, hours=4)  # down for three boundaries
    (run,) = runner(store, clock, recorder, summaries).run_pending()
    assert run.periods == 3
    assert (run.period_start, run.period_end) == (FIRST_DUE, datetime(2024, 3, 5, 5, tzinfo=UTC))
    assert len(summaries.calls) == 2
    assert len(recorder.sent) == 4


def test_a_failing_destination_blocks_nobody_and_is_retried_then_shown(
    store: SQLiteStore, schedule: Schedule
) -> None:
    clock, recorder, summaries = Clock(FIRST_DUE), Recorder(refuse={1}), FakeSummaries()
    worker = runner(store, clock, recorder, summaries, retry_seconds=60, max_attempts=2)
    (run,) = worker.run_pending()
    assert run.status == "written"  # waiting to try the webhook again
    assert recorder.sent == {(run.id, 0): 1}
    status = schedule_status(store, schedule)
    assert [(d.state, d.detail) for d in status.failing] == [
        ("failed", "HTTP 503 from the receiver")
    ]
    assert worker.run_pending() == []  # not before its retry time
    clock.advance(seconds=60)
    (again,) = worker.run_pending()
    assert again.status == "done"  # two tries: given up
    assert recorder.sent == {(run.id, 0): 1}
    recorder.refuse.clear()
    clock.advance(days=1)
    worker.run_pending()
    assert schedule_status(store, schedule).failing == ()


def test_run_now_delivers_and_the_next_digest_follows_on(
    store: SQLiteStore, schedule: Schedule
) -> None:
    clock, recorder, summaries = Clock(CREATED), Recorder(), FakeSummaries()
    worker = runner(store, clock, recorder, summaries)
    run = worker.run_now(schedule)
    assert run is not None
    assert run.period_end == CREATED
    clock.now = FIRST_DUE
    (next_run,) = worker.run_pending()
    assert next_run.period_start == CREATED


def test_the_background_runner_stops_cleanly(store: SQLiteStore, schedule: Schedule) -> None:
    clock, recorder, summaries = Clock(FIRST_DUE), Recorder(), FakeSummaries()
    background = Background(runner(store, clock, recorder, summaries)).start()
    for _ in range(200):
        if recorder.sent:
            break
        threading.Event().wait(0.01)
    assert background.stop(timeout=5)
    assert len(recorder.sent) == 2
