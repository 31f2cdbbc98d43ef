"""An alert's match is posted within a minute of the sync that stored it: at once by the
sync itself (a live sync through the Telethon adapter, to a signed webhook on
127.0.0.1), and by the runner's own alert thread when messages land otherwise, even
while a digest takes minutes to write (the clock is the test's)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path

import pytest
from delivery_fakes import Clock, FakeSummaries
from delivery_servers import Received, http_server
from telethon_fakes import TALK, talk_telegram, text_message

from toolkit.config import Settings
from toolkit.delivery.alert_post import AlertPost
from toolkit.delivery.digest import Adapter, Post
from toolkit.delivery.model import Destination, ScheduleSpec, parse_destinations
from toolkit.delivery.periods import Rule
from toolkit.delivery.runner import Background
from toolkit.delivery.webhook import verify
from toolkit.embeddings import Embedder
from toolkit.ingest.live.client import TelethonMessengerClient
from toolkit.models import Message, SourceKind
from toolkit.requests import SummaryRequest
from toolkit.workspace import AlertRequest, Workspace

pytestmark = pytest.mark.slow

QUERY = "ferry timetable change"
MATCH = "The ferry timetable changes on Monday: the first boat leaves at 7:10"


@pytest.fixture
def ws(data_dir: Path, embedder: Embedder) -> Iterator[Workspace]:
    settings = Settings(_env_file=None, data_dir=data_dir, delivery={"poll_seconds": 0.05})  # type: ignore[call-arg]
    opened = Workspace(settings, embedder=embedder)
    yield opened
    opened.close()


def test_a_live_sync_posts_its_new_match_before_it_returns(ws: Workspace) -> None:
    fake = talk_telegram()
    ws.sync("@open_talk", TelethonMessengerClient(fake), embed=False)  # its history
    received = Received()
    with http_server(received) as url:
        hook = {"kind": "webhook", "url": f"{url}/in", "secret": "s3cret"}
        ws.add_alert(AlertRequest(query=QUERY, min_score=0.05, destinations=[hook]))
        fake.histories[TALK.id].append(text_message(TALK, 24, MATCH))
        ws.sync("@open_talk", TelethonMessengerClient(fake), embed=False)
        ((_, headers, body),) = received.requests  # posted by the sync itself
    assert verify("s3cret", headers["X-Mlens-Timestamp"], body, headers["X-Mlens-Signature"])
    assert json.loads(body)["match"]["text"] == MATCH


class Slow:
    """A digest that takes as long as the test says (a slow LLM)."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def __call__(self, request: SummaryRequest) -> object:
        self.entered.set()
        self.release.wait(20)
        return FakeSummaries()(request)


def _recorder(got: list[tuple[Post, datetime]], clock: Clock) -> Callable[[Destination], Adapter]:
    class _One:
        def deliver(self, digest: Post) -> str:
            got.append((digest, clock()))
            return "recorded"

    return lambda _d: _One()


def test_the_runner_posts_a_match_within_a_minute_while_a_digest_is_being_written(
    ws: Workspace,
) -> None:
    now = datetime(2024, 5, 1, 12, 0, 30, tzinfo=UTC)
    clock = Clock(now)
    source = ws.store.upsert_source(title="Harbour", kind=SourceKind.CHAT, handle="harbour")
    ws.store.upsert_messages(
        [Message(source_id=source.id, messenger_message_id=1, posted_at=now, text="Hello all")]
    )
    spec = ScheduleSpec(
        source_ref="@harbour",
        rule=Rule("daily", clock_time(12, 0)),
        destinations=parse_destinations([{"kind": "feed"}]),
    )
    ws.add_schedule(spec, now=now - timedelta(days=1))  # due at 12:00, 30 s ago
    hook = {"kind": "webhook", "url": "http://127.0.0.1:9/in", "secret": "s"}
    ws.add_alert(AlertRequest(query=QUERY, min_score=0.05, destinations=[hook]), now=now)
    got: list[tuple[Post, datetime]] = []
    runner = ws.delivery_runner(clock=clock, adapters=_recorder(got, clock))
    slow = Slow()
    runner.ctx.summarize = slow  # type: ignore[assignment]
    background = Background(runner).start()
    try:
        assert slow.entered.wait(20)  # the digest is being written, and takes its time
        landed = clock.advance(seconds=5)
        ws.store.upsert_messages(
            [Message(source_id=source.id, messenger_message_id=2, posted_at=landed, text=MATCH)]
        )
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not slow.release.is_set()
        ((post, at),) = got
        assert isinstance(post, AlertPost)
        assert post.match is not None
        assert post.match.text == MATCH
        assert at - landed < timedelta(minutes=1)
    finally:
        slow.release.set()
        assert background.stop()


def test_a_stopped_runner_has_ended_its_alert_passes_before_the_store_closes(
    ws: Workspace,
) -> None:
    runner = ws.delivery_runner(clock=Clock(datetime(2024, 5, 1, 12, 0, tzinfo=UTC)))
    assert runner.alerts is not None
    entered, passes = threading.Event(), []

    def slow_pass() -> None:  # a pass reading the store while the runner is told to stop
        entered.set()
        time.sleep(0.5)
        passes.append("done")

    runner.alerts.run_pending = slow_pass  # type: ignore[method-assign]
    before = set(threading.enumerate())
    background = Background(runner).start()
    assert entered.wait(10)
    assert background.stop()
    assert passes == ["done"]  # the pass under way finished before stop() returned
    started = set(threading.enumerate()) - before
    assert not [t for t in started if t.is_alive()]
