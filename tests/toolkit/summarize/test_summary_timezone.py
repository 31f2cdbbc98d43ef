"""Summaries read times in the source's own zone: ``SummaryContext.timezone`` comes from
``Source.timezone`` wherever a context is built, and the cache key tells zones apart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Message, Source, SourceKind, Summary
from toolkit.requests import SourceSummaryRequest, SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.summarize import pipeline
from toolkit.summarize.cache import cache_key
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.pipeline import summarize_period, summarize_source

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass
class Recorder:
    """An engine that writes nothing but remembers the context it was given."""

    name: str = "extractive"
    seen: list[SummaryContext] = field(default_factory=list)

    def available(self, settings: Settings) -> bool:
        return True

    def check(self, ctx: SummaryContext) -> None:
        return None

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        return list(messages)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        return "recorder"

    def summarize(self, job: SummaryJob) -> Summary:
        self.seen.append(job.ctx)
        return Summary(job.source_ref, "ok", [], [], engine=self.name, language="en")


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    engine = Recorder()
    monkeypatch.setattr(pipeline, "select_engine", lambda settings, name=None: engine)
    return engine


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = SQLiteStore(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def seeded(store: SQLiteStore, zone: str | None) -> Source:
    source = store.upsert_source(title="Team", kind=SourceKind.CHAT, internal_id=5, timezone=zone)
    store.upsert_messages(
        [Message(source.id, 1, T0, "lunch tomorrow at 13:40?", sender_peer_id="user1")]
    )
    return source


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        ("Asia/Tokyo", ZoneInfo("Asia/Tokyo")),
        ("+09:00", timezone(timedelta(hours=9))),
        (None, UTC),
        ("Gone/Zone", UTC),  # stored by a machine that knew it; this one does not
    ],
)
def test_both_families_get_the_sources_zone(
    store: SQLiteStore, recorder: Recorder, zone: str | None, expected: Any
) -> None:
    seeded(store, zone)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    period = SummaryRequest(
        source_ref="c/5",
        started_at=T0,
        ended_at=T0 + timedelta(days=1),
        language="en",
        use_cache=False,
    )
    recent = SourceSummaryRequest(source_ref="c/5", language="en", use_cache=False)
    summarize_period(store, None, settings, period)  # type: ignore[arg-type]
    summarize_source(store, None, settings, recent)  # type: ignore[arg-type]
    assert [ctx.timezone for ctx in recorder.seen] == [expected, expected]
    assert [ctx.family for ctx in recorder.seen] == ["period", "source"]


def test_the_default_context_is_utc() -> None:
    assert SummaryContext("period", SourceKind.CHAT, "t", "en").timezone is UTC


def test_the_cache_key_tells_zones_apart() -> None:
    source = Source(1, "Team", SourceKind.CHAT, internal_id=5)
    messages = [Message(1, 1, T0, "lunch tomorrow at 13:40?")]
    utc = SummaryContext("period", SourceKind.CHAT, "Team", "en", T0, T0 + timedelta(days=1))
    tokyo = SummaryContext(
        "period", SourceKind.CHAT, "Team", "en", T0, T0 + timedelta(days=1),
        timezone=ZoneInfo("Asia/Tokyo"),
    )  # fmt: skip
    keys = {cache_key(source, ctx, "e", messages) for ctx in (utc, tokyo)}
    assert len(keys) == 2
    assert cache_key(source, tokyo, "e", messages) == cache_key(source, tokyo, "e", messages)


def test_every_day_and_time_a_digest_writes_is_the_sources_own() -> None:
    # 23:30 UTC on 1 March is 08:30 on 2 March in Tokyo: titles, spans and lines alike.
    import numpy as np

    from toolkit.summarize.extractive.engine import summarize_extractive

    start = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)
    texts = [
        "Shall we book the ferry to the island for Saturday morning?",
        "Yes, I booked four seats on the ferry at nine, it leaves from pier two.",
        "Great, I will bring the picnic and the umbrellas for the beach.",
    ]
    messages = [
        Message(1, i, start + timedelta(minutes=i), text, sender_peer_id=f"user{i % 2}",
                sender_name=("Ann K.", "Bob L.")[i % 2])
        for i, text in enumerate(texts, 1)
    ]  # fmt: skip
    vectors = np.random.default_rng(3).normal(size=(len(messages), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ctx = SummaryContext(
        "period", SourceKind.CHAT, "Trip", "en", start, start + timedelta(days=1),
        timezone=ZoneInfo("Asia/Tokyo"),
    )  # fmt: skip

    summary = summarize_extractive(messages, vectors, ctx, source_ref="@trip", link=lambda _: "")

    written = " ".join([summary.summary, *(s.title + " " + s.body for s in summary.sections)])
    assert "2 March" in written
    assert "1 March" not in written
    assert "23:3" not in written


@dataclass
class Citing(Recorder):
    """A recorder whose summary cites the window's first message."""

    def summarize(self, job: SummaryJob) -> Summary:
        self.seen.append(job.ctx)
        ids = [str(job.messages[0].messenger_message_id)] if job.messages else []
        return Summary(job.source_ref, "Lunch was planned.", [], ids, engine=self.name)


@pytest.mark.parametrize(
    ("language", "said", "local"),
    [
        (
            "en",
            "Times are the chat's local time (UTC+2), inferred from when its members write.",
            "Times are the chat's local time, inferred from when its members write.",
        ),
        (
            "ru",
            "Время указано местное для чата (UTC+2): часовой пояс определён по тому, "
            "когда пишут участники.",
            "Время указано местное для чата: оно определено по тому, когда пишут участники.",
        ),
        (
            "uk",
            "Час указано місцевий для чату (UTC+2): часовий пояс визначено за тим, "
            "коли пишуть учасники.",
            "Час указано місцевий для чату: його визначено за тим, коли пишуть учасники.",
        ),
    ],
)
def test_a_digest_says_when_its_zone_was_inferred(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, language: str, said: str, local: str
) -> None:
    engine = Citing()
    monkeypatch.setattr(pipeline, "select_engine", lambda settings, name=None: engine)
    source = seeded(store, None)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    period = SummaryRequest(
        source_ref="c/5", started_at=T0, ended_at=T0 + timedelta(days=1), language=language
    )
    store.set_source_timezone(source.id, "+02:00", "inferred")
    inferred = summarize_period(store, None, settings, period)  # type: ignore[arg-type]
    assert inferred.summary.endswith(said)
    assert engine.seen[-1].timezone == timezone(timedelta(hours=2))
    # UTC inferred: the times as written are the people's own (an HTML export without a
    # zone, made where the chat lives), never called "UTC".
    store.set_source_timezone(source.id, "+00:00", "inferred")
    written = summarize_period(store, None, settings, period)  # type: ignore[arg-type]
    assert written.summary.endswith(local)
    assert "UTC" not in written.summary
    # The same zone set by the user, or the export's, is not news to anyone.
    for origin in ("set", "export"):
        store.set_source_timezone(source.id, "+02:00", origin)  # type: ignore[arg-type]
        plain = summarize_period(store, None, settings, period)  # type: ignore[arg-type]
        assert plain.summary == "Lunch was planned."
    # A source summary has no times to place: nothing is said.
    store.set_source_timezone(source.id, "+02:00", "inferred")
    recent = SourceSummaryRequest(source_ref="c/5", language=language, use_cache=False)
    assert "UTC+2" not in summarize_source(store, None, settings, recent).summary  # type: ignore[arg-type]
