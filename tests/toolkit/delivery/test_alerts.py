"""Alerts over a real store and the real hybrid ranking: a new match posted once to each
destination, a message below the threshold never, history never; at most N an hour with
the rest counted in the next post; two workers racing post once; a restart keeps the
watermark; a crash before delivery is finished once; bad input is a clear error."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from delivery_fakes import Clock, race
from delivery_servers import Received, http_server

from toolkit.config import Settings
from toolkit.delivery.alert_post import AlertPost, Match
from toolkit.delivery.digest import Adapter, Post
from toolkit.delivery.model import Destination
from toolkit.delivery.render import html_document, plain_text, telegram_messages
from toolkit.delivery.runner import Background
from toolkit.delivery.webhook import verify
from toolkit.embeddings import Embedder
from toolkit.errors import AlertNotFound, InvalidRequest, SourceNotFound
from toolkit.models import Message, Source, SourceKind
from toolkit.workspace import AlertRequest, Workspace

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
QUERY = "boat rental price"
HISTORY = [
    "Morning all, the weather looks calm today",
    "The boat rental costs 40 euros a day at the north pier",  # old: never posted
]
MATCHES = [
    "Boat rental prices went up again this week",
    "Renting a boat for Saturday: the pier office quoted 45 euros",
    "The boat rental at the south pier has a better price",
    "Boat rental price for the whole crew is 120 euros",
    "Is the boat rental price the same on Sundays?",
]
OFF_TOPIC = "I will bring sandwiches for lunch tomorrow"
WEBHOOK = {"kind": "webhook", "url": "http://127.0.0.1:9/hook", "secret": "s3cret"}
TELEGRAM = {"kind": "telegram", "chat_id": "-100777", "bot_token": "123:abc"}


@dataclass
class Posts:
    """Adapters that record each delivery by (post, destination)."""

    sent: Counter[tuple[int, int]] = field(default_factory=Counter)
    posts: list[AlertPost] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def adapters(self) -> Callable[[Destination], Adapter]:
        record = self

        class _One:
            def deliver(self, digest: Post) -> str:
                assert isinstance(digest, AlertPost)
                with record.lock:
                    record.sent[(digest.post_id, digest.destination)] += 1
                    record.posts.append(digest)
                return "recorded"

        return lambda _d: _One()

    def texts(self, destination: int = 0) -> list[str]:
        return [p.match.text for p in self.posts if p.match and p.destination == destination]


def open_ws(data_dir: Path, embedder: Embedder) -> Workspace:
    return Workspace(Settings(_env_file=None, data_dir=data_dir), embedder=embedder)  # type: ignore[call-arg]


@pytest.fixture
def ws(data_dir: Path, embedder: Embedder) -> Iterator[Workspace]:
    opened = open_ws(data_dir, embedder)
    yield opened
    opened.close()


def make_crew(ws: Workspace) -> Source:
    source = ws.store.upsert_source(
        title="Harbour crew", kind=SourceKind.CHAT, handle="harbour_crew"
    )
    land(ws, source, HISTORY)
    return source


@pytest.fixture
def crew(ws: Workspace) -> Source:
    return make_crew(ws)


def land(ws: Workspace, source: Source, texts: list[str]) -> list[int]:
    """Store ``texts`` as the source's next messages; their ids."""
    last = ws.store.last_message_ids().get(source.id, 0)
    ids = list(range(last + 1, last + 1 + len(texts)))
    ws.store.upsert_messages(
        Message(
            source_id=source.id,
            messenger_message_id=i,
            posted_at=NOW - timedelta(hours=1) + timedelta(minutes=i),
            text=t,
        )
        for i, t in zip(ids, texts, strict=True)
    )
    return ids


def alert(ws: Workspace, **fields: Any) -> int:
    body = {"query": QUERY, "source_refs": ["@harbour_crew"], "min_score": 0.05,
            "destinations": [WEBHOOK, TELEGRAM], **fields}  # fmt: skip
    return ws.add_alert(AlertRequest(**body), now=NOW).id


def test_a_new_match_is_posted_once_to_each_destination_and_nothing_else(
    ws: Workspace, crew: Source
) -> None:
    alert_id = alert(ws)
    clock, posts = Clock(NOW), Posts()
    runner = ws.alert_runner(clock=clock, adapters=posts.adapters())
    assert runner.run_pending() == []  # the history is not news
    land(ws, crew, [OFF_TOPIC, MATCHES[0], "ok"])
    (post,) = runner.run_pending()
    assert post.status == "done"
    assert posts.texts(0) == posts.texts(1) == [MATCHES[0]]  # the sandwiches stay below
    assert set(posts.sent.values()) == {1}
    assert runner.run_pending() == []
    assert len(posts.posts) == 2
    out = ws.alert(alert_id)
    assert [d.state for d in out.destinations] == ["sent", "sent"]
    assert out.last_post is not None
    assert (out.last_post.score or 0) >= 0.05
    assert out.destinations[1].config["bot_token"] == "**********"


def test_at_most_n_an_hour_and_the_next_post_says_how_many_were_held(
    ws: Workspace, crew: Source
) -> None:
    alert_id = alert(ws, max_per_hour=2)
    clock, posts = Clock(NOW), Posts()
    runner = ws.alert_runner(clock=clock, adapters=posts.adapters())
    land(ws, crew, MATCHES[:4])
    assert len(runner.run_pending()) == 2
    assert ws.alert(alert_id).held == 2
    land(ws, crew, [MATCHES[4]])
    clock.advance(minutes=30)
    assert runner.run_pending() == []  # still the same hour: counted, not posted
    assert ws.alert(alert_id).held == 3
    clock.advance(minutes=31)
    (note,) = runner.run_pending()  # no new match: the note alone, once the cap allows
    assert {p.held for p in posts.posts if p.post_id == note.id} == {3}
    assert all(p.match is None for p in posts.posts if p.post_id == note.id)
    held_post = next(p for p in posts.posts if p.post_id == note.id)
    assert "3 more matching message(s)" in held_post.blocks()[0][1]
    assert ws.alert(alert_id).held == 0
    land(ws, crew, [MATCHES[0]])
    (next_post,) = runner.run_pending()
    assert len([k for k in posts.sent if k[1] == 0]) == 4
    assert all(p.held == 0 for p in posts.posts if p.post_id == next_post.id)


def test_the_held_count_rides_on_the_next_match(ws: Workspace, crew: Source) -> None:
    alert(ws, max_per_hour=1)
    clock, posts = Clock(NOW), Posts()
    runner = ws.alert_runner(clock=clock, adapters=posts.adapters())
    land(ws, crew, MATCHES[:3])
    assert len(runner.run_pending()) == 1
    clock.advance(minutes=61)
    land(ws, crew, [MATCHES[3]])
    (post,) = runner.run_pending()
    (first, _) = [p for p in posts.posts if p.post_id == post.id]
    assert first.match is not None
    assert first.match.text == MATCHES[3]
    assert first.held == 2
    assert [title for title, _ in first.blocks()][1] == "Held back"
    assert first.document()["held"]["count"] == 2


def test_two_workers_racing_post_each_match_once(
    ws: Workspace, crew: Source, data_dir: Path, embedder: Embedder
) -> None:
    alert(ws)
    land(ws, crew, MATCHES[:3])
    clock, posts = Clock(NOW), Posts()
    others = [open_ws(data_dir, embedder) for _ in range(3)]

    def work(other: Workspace, name: str) -> None:
        other.alert_runner(clock=clock, adapters=posts.adapters(), owner=name).run_pending()

    race(*(partial(work, o, f"w{i}") for i, o in enumerate(others)), timeout=120)
    for o in others:
        o.close()
    assert set(posts.sent.values()) == {1}
    assert sorted(posts.texts(0)) == sorted(MATCHES[:3])
    assert sorted(posts.texts(1)) == sorted(MATCHES[:3])


def test_a_restart_keeps_the_watermark(
    ws: Workspace, crew: Source, data_dir: Path, embedder: Embedder
) -> None:
    alert(ws)
    land(ws, crew, [MATCHES[0]])
    clock, posts = Clock(NOW), Posts()
    assert len(ws.alert_runner(clock=clock, adapters=posts.adapters()).run_pending()) == 1
    ws.close()
    again = open_ws(data_dir, embedder)
    try:
        runner = again.alert_runner(clock=clock, adapters=posts.adapters())
        assert runner.run_pending() == []
        land(again, crew, [MATCHES[1]])
        assert len(runner.run_pending()) == 1
    finally:
        again.close()
    assert posts.texts(0) == MATCHES[:2]
    assert set(posts.sent.values()) == {1}


class Crash(BaseException):
    """The process dies here."""


def test_a_crash_before_delivery_is_finished_once_after_the_lease(
    ws: Workspace, crew: Source, monkeypatch: pytest.MonkeyPatch
) -> None:
    alert(ws)
    land(ws, crew, [MATCHES[0]])
    clock, posts = Clock(NOW), Posts()

    def crash(*_args: object, **_kwargs: object) -> None:
        raise Crash

    with monkeypatch.context() as patched:
        patched.setattr("toolkit.delivery.run.send", crash)
        with pytest.raises(Crash):
            ws.alert_runner(clock=clock, adapters=posts.adapters(), owner="dead").run_pending()
    runner = ws.alert_runner(clock=clock, adapters=posts.adapters(), owner="next")
    assert runner.run_pending() == []  # leased by the dead worker still
    clock.advance(seconds=ws.settings.delivery.lease_seconds)
    (post,) = runner.run_pending()
    assert post.status == "done"
    assert runner.run_pending() == []
    assert posts.texts(0) == [MATCHES[0]]
    assert set(posts.sent.values()) == {1}


def test_after_ingest_posts_to_a_signed_webhook(ws: Workspace, crew: Source) -> None:
    received = Received()
    with http_server(received) as url:
        hook = {"kind": "webhook", "url": f"{url}/in", "secret": "s3cret"}
        alert(ws, destinations=[hook])
        land(ws, crew, [OFF_TOPIC, MATCHES[1]])
        ws.after_ingest()
        ws.after_ingest()
    ((path, headers, body),) = received.requests
    assert path == "/in"
    assert verify("s3cret", headers["X-Mlens-Timestamp"], body, headers["X-Mlens-Signature"])
    document = json.loads(body)
    assert document["match"]["text"] == MATCHES[1]
    assert document["match"]["message_link"] == "https://t.me/harbour_crew/4"
    assert document["query"] == QUERY
    assert document["held"] is None


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"query": "   "}, "query"),
        ({"query": ""}, "query"),
        ({"min_score": 1.5}, "min_score"),
        ({"min_score": -0.1}, "min_score"),
        ({"max_per_hour": 0}, "max_per_hour"),
        ({"max_per_hour": 61}, "max_per_hour"),
        ({"destinations": []}, "destinations"),
        ({"destinations": [{"kind": "feed"}]}, "destinations"),
    ],
)
def test_bad_input_is_an_invalid_request_naming_its_field(
    fields: dict[str, Any], field: str
) -> None:
    body = {"query": QUERY, "min_score": 0.2, "destinations": [WEBHOOK], **fields}
    with pytest.raises(InvalidRequest) as caught:
        AlertRequest(**body)
    assert caught.value.field == field


def test_an_unknown_source_or_alert_is_not_found(ws: Workspace, crew: Source) -> None:
    with pytest.raises(SourceNotFound):
        alert(ws, source_refs=["@harbour_crew", "@nobody_here"])
    assert ws.alerts() == []
    with pytest.raises(AlertNotFound):
        ws.remove_alert(7)
    alert_id = alert(ws)
    ws.remove_alert(alert_id)
    assert ws.alerts() == []


def test_the_runner_thread_posts_a_match_on_its_tick(data_dir: Path, embedder: Embedder) -> None:
    settings = Settings(_env_file=None, data_dir=data_dir, delivery={"poll_seconds": 0.05})  # type: ignore[call-arg]
    ticking = Workspace(settings, embedder=embedder)
    try:
        source = make_crew(ticking)
        alert(ticking)
        land(ticking, source, [MATCHES[2]])
        posts = Posts()
        background = Background(ticking.delivery_runner(adapters=posts.adapters())).start()
        try:
            for _ in range(200):
                if posts.posts:
                    break
                time.sleep(0.05)
        finally:
            assert background.stop()
        assert posts.texts(0) == [MATCHES[2]]
    finally:
        ticking.close()


def test_a_post_reads_well_in_telegram_and_mail() -> None:
    post = AlertPost(
        alert_id=1,
        post_id=9,
        destination=0,
        query="<b>boat</b> & co",
        max_per_hour=3,
        match=Match(
            source_ref="@harbour_crew",
            source_title="Harbour crew",
            messenger_message_id="4",
            text="Boat rental < 40 euros & up",
            message_link="https://t.me/harbour_crew/4",
            posted_at=NOW,
            score=0.4321,
        ),
        held=2,
        held_since=NOW,
    )
    (message,) = telegram_messages(post)
    assert "<b>Alert &quot;&lt;b&gt;boat&lt;/b&gt; &amp; co&quot;: Harbour crew</b>" in message
    assert "Boat rental &lt; 40 euros &amp; up\nhttps://t.me/harbour_crew/4" in message
    assert "(score 0.43, posted 2024-05-01 12:00 UTC)" in message
    assert "2 more matching message(s) since 2024-05-01 12:00 UTC" in plain_text(post)
    assert '<a href="https://t.me/harbour_crew/4">' in html_document(post)
    assert post.delivery_id == "alert-9-0"
