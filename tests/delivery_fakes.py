"""Fakes for the delivery tests: a clock moved by hand, a summary verb that counts its
calls, adapters that record or refuse, threads released at once (``race``) and a worker
process for races on one file."""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter, DeliveryFailed, Digest
from toolkit.delivery.model import Destination
from toolkit.delivery.runner import Runner
from toolkit.models import Section, SectionItem, Summary
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore


@dataclass
class Clock:
    """A clock a test moves by hand (aware UTC)."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@dataclass
class FakeSummaries:
    """The summary verb: a small digest naming its period; counts its calls."""

    calls: list[SummaryRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: SummaryRequest) -> Summary:
        with self.lock:
            self.calls.append(request)
        item = SectionItem(
            text="Ana asks where the meeting is (https://t.me/team_chat/7)",
            messenger_message_ids=("7",),
        )
        return Summary(
            source_ref=str(request.source_ref),
            summary=f"Digest of {request.started_at:%Y-%m-%d %H:%M} to {request.ended_at:%H:%M}.",
            sections=[Section(title="Open questions", body="— " + item.text, items=(item,))],
            important_messenger_message_ids=["7"],
            language=request.language,
        )


@dataclass
class Recorder:
    """Adapters that record what each destination got; ``refuse`` names destinations
    (by place) that fail, and ``crash`` ones that raise a ``BaseException``."""

    sent: Counter[tuple[int, int]] = field(default_factory=Counter)
    digests: list[Digest] = field(default_factory=list)
    refuse: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def adapters(self, destinations: list[Destination]) -> Callable[[Destination], Adapter]:
        recorder = self

        class _One:
            def deliver(self, digest: Digest) -> str:
                if digest.destination in recorder.refuse:
                    raise DeliveryFailed("HTTP 503 from the receiver")
                with recorder.lock:
                    recorder.sent[(digest.run_id, digest.destination)] += 1
                    recorder.digests.append(digest)
                return "sent"

        return lambda _destination: _One()


T = TypeVar("T")


def race(*jobs: Callable[[], T], timeout: float = 60) -> list[T]:
    """Each job in its own thread, all released together by a barrier; their results in
    order. A job that raises fails the race, and so does one still running after
    ``timeout`` seconds."""
    gate = threading.Barrier(len(jobs))
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def run(place: int, job: Callable[[], T]) -> None:
        gate.wait()
        try:
            results[place] = job()
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), f"a job still runs after {timeout} s"
    if errors:
        raise errors[0]
    return [results[place] for place in range(len(jobs))]


def race_worker(path: str, now_iso: str, out: str, ready: str) -> None:
    """A worker process: one pass over the store at ``path`` at ``now_iso``; each
    delivery appends a line to ``out``. Waits for the file ``ready`` to appear first."""
    while not Path(ready).exists():
        pass
    store = SQLiteStore(path)

    class _Append:
        def deliver(self, digest: Digest) -> str:
            with open(out, "a") as fh:
                fh.write(f"{os.getpid()} {digest.run_id} {digest.destination}\n")
            return "appended"

    runner = Runner(
        store,
        DeliverySettings(),
        summarize=FakeSummaries(),
        adapters=lambda _d: _Append(),
        clock=lambda: datetime.fromisoformat(now_iso).astimezone(UTC),
    )
    runner.run_pending()
    store.close()
