"""``toolkit.turns``: at most N holders compute at once; a waiter gives up at its deadline."""

from __future__ import annotations

import threading
import time

import pytest

from toolkit import deadline
from toolkit.errors import Busy, DeadlineExceeded
from toolkit.turns import Turns


@pytest.mark.parametrize("slots", [1, 3])
def test_never_more_holders_than_slots(slots: int) -> None:
    turns = Turns(slots)
    lock = threading.Lock()
    holding = [0]
    most = [0]

    def work() -> None:
        for _ in range(20):
            with turns.turn():
                with lock:
                    holding[0] += 1
                    most[0] = max(most[0], holding[0])
                time.sleep(0.001)
                with lock:
                    holding[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == slots  # 8 threads contended, so every slot was used, none more


def test_a_waiter_stops_at_its_deadline_and_the_slot_is_not_lost() -> None:
    turns = Turns(1)
    _, release, thread = _held(turns)
    started = time.monotonic()
    refused = pytest.raises(DeadlineExceeded, match=r"within 0\.1 s")
    with deadline.within(0.1), refused, turns.turn():
        pytest.fail("two holders of one slot")
    assert 0.09 < time.monotonic() - started < 5
    release.set()
    thread.join()
    with deadline.within(1), turns.turn():  # the slot came back
        pass


def test_a_turn_taken_after_the_deadline_does_not_start_the_work() -> None:
    turns = Turns(1)
    with deadline.within(0.0), pytest.raises(DeadlineExceeded), turns.turn():
        pytest.fail("work started past its deadline")
    with turns.turn():  # released on the way out
        pass


def test_slots_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Turns(0)


def test_remaining_is_none_without_a_deadline_and_never_negative() -> None:
    assert deadline.remaining() is None
    with deadline.within(0.0):
        time.sleep(0.01)
        assert deadline.remaining() == 0.0
    with deadline.within(60):
        left = deadline.remaining()
        assert left is not None
        assert 59 < left <= 60


def _held(turns: Turns) -> tuple[threading.Event, threading.Event, threading.Thread]:
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with turns.turn():
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    assert held.wait(10)
    return held, release, thread


def test_a_bounded_wait_ends_busy_with_a_retry_time_and_the_slot_is_not_lost() -> None:
    turns = Turns(1, what="summaries")
    _, release, thread = _held(turns)
    refused = pytest.raises(Busy, match="all 1 turns for summaries are taken")
    with refused as info, turns.turn(wait=0.05):
        pytest.fail("two holders of one slot")
    assert info.value.retry_after == 1.0  # no turn has ended yet: at least a second
    release.set()
    thread.join()
    assert turns.held_seconds is not None
    with turns.turn(wait=0.05):  # the slot came back
        pass


def test_busy_suggests_how_long_turns_have_lately_been_held() -> None:
    turns = Turns(1)
    turns._record(4.0)
    turns._record(8.0)
    assert turns.held_seconds == pytest.approx(4.0 + 0.3 * 4.0)
    _, release, thread = _held(turns)
    with pytest.raises(Busy) as info, turns.turn(wait=0.0):
        pytest.fail("two holders of one slot")
    release.set()
    thread.join()
    assert info.value.retry_after == pytest.approx(5.2)


def test_a_deadline_nearer_than_the_wait_is_deadline_exceeded_not_busy() -> None:
    turns = Turns(1)
    _, release, thread = _held(turns)
    with deadline.within(0.05), pytest.raises(DeadlineExceeded), turns.turn(wait=30):
        pytest.fail("two holders of one slot")
    release.set()
    thread.join()


def test_a_free_slot_is_taken_at_once_whatever_the_wait() -> None:
    turns = Turns(2)
    with turns.turn(wait=0.0), turns.turn(wait=0.0), pytest.raises(Busy), turns.turn(wait=0.0):
        pytest.fail("three holders of two slots")


def test_summary_turns_are_the_cores_unless_set() -> None:
    from toolkit.config import Settings, cores

    unset = Settings(_env_file=None, database={"path": ":memory:"})  # type: ignore[call-arg]
    assert unset.summary.concurrency is None
    assert unset.summary.slots == cores() >= 1
    assert unset.replace(summary={"concurrency": 3}).summary.slots == 3
