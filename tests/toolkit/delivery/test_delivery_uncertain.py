"""A worker that dies after a destination accepted the digest and before its outcome is
recorded: the next worker sends it again only where a repeat does no harm (a webhook,
by its delivery id); a Telegram chat or a mailbox is recorded ``uncertain``, shown, and
sent again only when a person asks (or ``resend_uncertain`` says to)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from pathlib import Path

import pytest
from delivery_fakes import Clock, FakeSummaries

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter, Post
from toolkit.delivery.model import Destination, Schedule, ScheduleSpec, parse_destinations
from toolkit.delivery.periods import Rule
from toolkit.delivery.runner import Runner
from toolkit.delivery.status import new_schedule, schedule_status
from toolkit.models import Source
from toolkit.store import SQLiteStore

DUE = datetime(2024, 3, 2, 8, 0, tzinfo=UTC)
DESTINATIONS = [
    {"kind": "telegram", "chat_id": "-100", "bot_token": "1:tok"},
    {"kind": "webhook", "url": "http://127.0.0.1:1/", "secret": "s"},
    {"kind": "email", "to": ["ops@example.org"]},
]


class Crash(BaseException):
    """The worker's process dies here."""


@dataclass
class Destinations:
    """Adapters that record every digest they accept; the one at ``crash_at`` accepts
    it and then its worker dies, once."""

    got: list[tuple[str, str]] = field(default_factory=list)
    """(kind, delivery id) of every digest accepted."""
    crash_at: str | None = None

    def __call__(self, destination: Destination) -> Adapter:
        outer = self

        class _One:
            def deliver(self, digest: Post) -> str:
                outer.got.append((destination.kind, digest.delivery_id))
                if destination.kind == outer.crash_at:
                    outer.crash_at = None
                    raise Crash  # accepted, and nothing recorded after
                return "accepted"

        return _One()

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.got if k == kind)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


@pytest.fixture
def schedule(store: SQLiteStore, team: Source) -> Schedule:
    spec = ScheduleSpec(
        source_ref="@team_chat",
        rule=Rule("daily", time(8, 0)),
        destinations=parse_destinations(DESTINATIONS),
    )
    return Schedule.of(store.add_schedule(new_schedule(spec, team, DUE.replace(day=1))))


def _runner(
    store: SQLiteStore, clock: Clock, destinations: Destinations, **settings: object
) -> Runner:
    return Runner(
        store,
        DeliverySettings.model_validate(settings),
        summarize=FakeSummaries(),
        adapters=destinations,
        clock=clock,
    )


def _crash_then_restart(
    store: SQLiteStore, clock: Clock, destinations: Destinations, **settings: object
) -> Runner:
    with pytest.raises(Crash):
        _runner(store, clock, destinations, **settings).run_pending()
    clock.advance(seconds=DeliverySettings().lease_seconds)  # the dead worker's lease ends
    restarted = _runner(store, clock, destinations, **settings)
    (run,) = restarted.run_pending()
    assert run.status == "done"
    return restarted


def _states(store: SQLiteStore, schedule: Schedule) -> dict[str, str]:
    status = schedule_status(store, schedule)
    return {d.label.split()[0]: d.state for d in status.destinations}


@pytest.mark.parametrize("kind", ["telegram", "email"])
def test_a_send_that_may_have_arrived_is_not_repeated_but_shown_uncertain(
    store: SQLiteStore, schedule: Schedule, kind: str
) -> None:
    clock, destinations = Clock(DUE), Destinations(crash_at=kind)
    _crash_then_restart(store, clock, destinations)
    assert [destinations.count(k) for k in ("telegram", "webhook", "email")] == [1, 1, 1]
    assert _states(store, schedule)[kind] == "uncertain"
    (trouble,) = schedule_status(store, schedule).failing
    assert trouble.state == "uncertain"
    assert trouble.detail is not None
    assert "may have arrived" in trouble.detail
    clock.advance(hours=1)
    assert _runner(store, clock, destinations).run_pending() == []  # settled: never again
    assert destinations.count(kind) == 1


def test_a_webhook_is_sent_again_with_the_same_delivery_id(
    store: SQLiteStore, schedule: Schedule
) -> None:
    destinations = Destinations(crash_at="webhook")
    _crash_then_restart(store, Clock(DUE), destinations)
    hooks = [i for k, i in destinations.got if k == "webhook"]
    assert len(hooks) == 2
    assert len(set(hooks)) == 1  # the receiver drops the repeat by it
    assert (destinations.count("telegram"), destinations.count("email")) == (1, 1)
    assert set(_states(store, schedule).values()) == {"sent"}


def test_resend_on_request_sends_the_uncertain_one_once_more(
    store: SQLiteStore, schedule: Schedule
) -> None:
    clock, destinations = Clock(DUE), Destinations(crash_at="telegram")
    restarted = _crash_then_restart(store, clock, destinations)
    assert store.resend_uncertain(schedule.id + 1, now=clock()) == []  # another schedule
    runs = store.resend_uncertain(schedule.id, now=clock())
    assert len(runs) == 1
    assert _states(store, schedule)["telegram"] == "failed"  # waiting to be sent again
    (again,) = restarted.finish_open(runs)
    assert again.status == "done"
    assert [destinations.count(k) for k in ("telegram", "webhook", "email")] == [2, 1, 1]
    assert set(_states(store, schedule).values()) == {"sent"}
    assert store.resend_uncertain(schedule.id, now=clock()) == []  # nothing left


def test_an_operator_may_choose_a_repeat_over_a_gap(store: SQLiteStore, schedule: Schedule) -> None:
    destinations = Destinations(crash_at="telegram")
    _crash_then_restart(store, Clock(DUE), destinations, resend_uncertain=True)
    assert destinations.count("telegram") == 2
    assert set(_states(store, schedule).values()) == {"sent"}
