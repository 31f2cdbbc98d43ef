"""Live sync over a fake Telethon client serving real Telethon messages, never a connection.

Covers the first sync, incremental sync from the watermark (oldest first), FloodWait
short (slept, resumed, no duplicate) and long (``RateLimited``, commits kept),
interruptions resumed without gap or duplicate, edits on a full re-sync, ``run_sync``
and the ``mlens sync`` command.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from telethon.tl import types as tl
from telethon_fakes import (
    ALICE,
    BASE_TIME,
    NEWS,
    PRIVATE,
    TALK,
    TALK_SIZE,
    FakeTelegram,
    Fault,
    flood,
    history,
    talk_telegram,
    text_message,
)

from toolkit.errors import RateLimited, StoreError, UpstreamError
from toolkit.ingest.live.client import TelethonMessengerClient
from toolkit.ingest.live.sync import run_sync, sync_source
from toolkit.models import Message, SourceKind, SourceRef, SyncReport
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL

N = TALK_SIZE
TALK_REF = parse_ref("@open_talk")


class Sleeper:
    """Records FloodWait sleeps instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake() -> FakeTelegram:
    return talk_telegram()


def sync(
    store: SQLiteStore,
    fake: FakeTelegram,
    ref: SourceRef = TALK_REF,
    *,
    batch_size: int = 5,
    threshold: float = 60.0,
    sleeper: Sleeper | None = None,
    **kwargs: Any,
) -> SyncReport:
    """One ``sync_source`` run through the real Telethon adapter over the fake."""
    return asyncio.run(
        sync_source(
            store,
            TelethonMessengerClient(fake),
            ref,
            batch_size=batch_size,
            flood_sleep_threshold=threshold,
            sleep=sleeper or Sleeper(),
            **kwargs,
        )
    )


def stored_ids(store: SQLiteStore, source_id: int) -> list[int]:
    return [m.messenger_message_id for m in store.iter_messages(source_id)]


def test_first_sync_commits_everything_in_batches_oldest_first(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    batches: list[tuple[int, list[int]]] = []
    report = sync(
        store,
        fake,
        on_batch=lambda sid, msgs: batches.append((sid, [m.messenger_message_id for m in msgs])),
    )
    source = report.source
    assert (source.handle, source.internal_id, source.title, source.kind) == (
        "open_talk",
        TALK.id,
        "Open Talk",
        SourceKind.CHAT,
    )
    assert store.get_source(parse_ref("t.me/Open_Talk")) == source
    assert stored_ids(store, source.id) == list(range(1, N + 1))
    assert report.fetched == N
    assert (report.result.inserted, report.result.updated, report.result.unchanged) == (N, 0, 0)
    assert report.batches == 5
    assert (report.watermark_before, report.watermark_after) == (None, N)
    assert store.get_watermark(source.id) == N
    assert store.source_stats(source.id).last_synced_at is not None
    # Batches arrive in posting order, each at most batch_size, together the whole history.
    assert [sid for sid, _ in batches] == [source.id] * 5
    assert [ids for _, ids in batches] == [
        list(range(start, min(start + 5, N + 1))) for start in range(1, N + 1, 5)
    ]
    assert fake.calls == [{"entity": TALK.id, "min_id": 0, "reverse": True, "limit": None}]
    first = store.get_messages(source.id, [1])[0]
    assert (first.sender_peer_id, first.sender_name, first.text) == (
        "user102",
        "Bob",
        "message number 1",
    )


def test_incremental_sync_fetches_only_newer_messages_oldest_first(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    first = sync(store, fake)
    fake.histories[TALK.id] += history(TALK, range(N + 1, N + 8))
    fake.yielded.clear()
    second = sync(store, fake, batch_size=3)
    assert fake.calls[-1]["min_id"] == N
    assert fake.calls[-1]["reverse"] is True
    assert fake.yielded == list(range(N + 1, N + 8))  # nothing old fetched again
    assert (second.result.inserted, second.result.unchanged) == (7, 0)
    assert (second.watermark_before, second.watermark_after) == (N, N + 7)
    assert stored_ids(store, first.source.id) == list(range(1, N + 8))
    # With nothing new, a sync fetches nothing and moves nothing.
    third = sync(store, fake)
    assert (third.fetched, third.batches, third.watermark_after) == (0, 0, N + 7)


def test_short_flood_wait_is_slept_and_resumes_from_the_last_commit(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    fake.faults.append(Fault(call=0, after=7, error=flood(5)))
    sleeper = Sleeper()
    report = sync(store, fake, threshold=10, sleeper=sleeper)
    assert sleeper.waits == [5]
    assert (report.flood_waits, report.slept_seconds) == (1, 5.0)
    # The 7 messages before the wait were committed; the fetch resumed right after them.
    assert [c["min_id"] for c in fake.calls] == [0, 7]
    assert fake.yielded == list(range(1, N + 1))  # each message fetched exactly once
    assert stored_ids(store, report.source.id) == list(range(1, N + 1))
    assert (report.result.inserted, report.result.unchanged) == (N, 0)


def test_long_flood_wait_raises_and_keeps_what_was_committed(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    fake.faults.append(Fault(call=0, after=12, error=flood(3600)))
    sleeper = Sleeper()
    with pytest.raises(RateLimited) as info:
        sync(store, fake, threshold=60, sleeper=sleeper)
    assert info.value.retry_after == 3600
    assert "12 messages" in str(info.value)
    assert sleeper.waits == []
    source = store.get_source(TALK_REF)
    assert stored_ids(store, source.id) == list(range(1, 13))
    assert store.get_watermark(source.id) == 12
    # Coming back later resumes after message 12 and completes the history.
    report = sync(store, fake)
    assert fake.calls[-1]["min_id"] == 12
    assert (report.result.inserted, report.result.unchanged) == (N - 12, 0)
    assert stored_ids(store, source.id) == list(range(1, N + 1))


def test_too_many_short_waits_give_up_with_rate_limited(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    fake.faults.extend(Fault(call=i, after=2, error=flood(1)) for i in range(5))
    sleeper = Sleeper()
    with pytest.raises(RateLimited):
        sync(store, fake, sleeper=sleeper, max_flood_waits=3)
    assert sleeper.waits == [1, 1, 1]
    assert stored_ids(store, store.get_source(TALK_REF).id) == list(range(1, 9))


@pytest.mark.parametrize("batch_size", [1, 4, 5, 50])
@pytest.mark.parametrize("after", [0, 3, 10, 13])
def test_interrupted_sync_resumes_without_gap_or_duplicate(
    store: SQLiteStore, fake: FakeTelegram, batch_size: int, after: int
) -> None:
    fake.faults.append(Fault(call=0, after=after, error=RuntimeError("power cut")))
    with pytest.raises(RuntimeError, match="power cut"):
        sync(store, fake, batch_size=batch_size)
    source = store.get_source(TALK_REF)
    committed = (after // batch_size) * batch_size  # only whole batches reached the store
    assert stored_ids(store, source.id) == list(range(1, committed + 1))
    assert store.get_watermark(source.id) == (committed or None)

    report = sync(store, fake, batch_size=batch_size)
    assert fake.calls[-1]["min_id"] == committed
    assert stored_ids(store, source.id) == list(range(1, N + 1))
    assert (report.result.inserted, report.result.updated, report.result.unchanged) == (
        N - committed,
        0,
        0,
    )
    assert store.count_messages(source.id) == N


def test_upstream_failure_commits_what_arrived_then_resumes(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    fake.faults.append(Fault(call=0, after=13, error=ConnectionError("connection reset")))
    with pytest.raises(UpstreamError, match="connection reset"):
        sync(store, fake, batch_size=5)
    source = store.get_source(TALK_REF)
    # Everything that arrived is contiguous from the start, so all 13 are kept.
    assert stored_ids(store, source.id) == list(range(1, 14))
    assert store.get_watermark(source.id) == 13
    sync(store, fake, batch_size=5)
    assert fake.calls[-1]["min_id"] == 13
    assert fake.yielded == list(range(1, N + 1))


def test_a_sequence_of_interruptions_ends_in_the_whole_history(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    fake.faults.extend(
        [
            Fault(call=0, after=4, error=RuntimeError("crash")),
            Fault(call=1, after=3, error=flood(2)),
            Fault(call=2, after=6, error=ConnectionError("reset")),
            Fault(call=3, after=1, error=flood(7200)),
        ]
    )
    inserted = 0
    for _ in range(10):
        try:
            inserted += sync(store, fake, batch_size=3).result.inserted
            break
        except (RuntimeError, UpstreamError, RateLimited):
            continue
    source = store.get_source(TALK_REF)
    assert stored_ids(store, source.id) == list(range(1, N + 1))
    mins = [c["min_id"] for c in fake.calls]
    assert mins == sorted(mins)  # the fetch never went back
    assert store.count_messages(source.id) == N


def test_full_resync_picks_up_edits(store: SQLiteStore, fake: FakeTelegram) -> None:
    report = sync(store, fake)
    talk = fake.histories[TALK.id]
    talk[2] = text_message(
        TALK,
        3,
        "message number 3, corrected",
        sender=ALICE,
        edit_date=datetime(2024, 3, 2, tzinfo=UTC),
    )
    # An incremental sync cannot see an edit below the watermark …
    assert sync(store, fake).fetched == 0
    # … a full one can: the edit replaces the text, nothing is duplicated.
    full = sync(store, fake, full=True)
    assert fake.calls[-1]["min_id"] == 0
    assert (full.result.inserted, full.result.updated, full.result.unchanged) == (0, 1, N - 1)
    edited = store.get_messages(report.source.id, [3])[0]
    assert edited.text == "message number 3, corrected"
    assert edited.edited_at == datetime(2024, 3, 2, tzinfo=UTC)
    assert store.count_messages(report.source.id) == N
    assert store.get_watermark(report.source.id) == N


def test_limit_caps_one_run_and_the_next_continues(store: SQLiteStore, fake: FakeTelegram) -> None:
    first = sync(store, fake, limit=9)
    assert (first.fetched, first.watermark_after) == (9, 9)
    assert fake.calls[-1]["limit"] == 9
    second = sync(store, fake, limit=100)
    assert (second.fetched, second.watermark_after) == (N - 9, N)


def test_limit_is_shared_across_a_flood_wait(store: SQLiteStore, fake: FakeTelegram) -> None:
    fake.faults.append(Fault(call=0, after=4, error=flood(1)))
    report = sync(store, fake, limit=10)
    assert [c["limit"] for c in fake.calls] == [10, 6]
    assert report.fetched == 10


def test_channel_with_service_media_and_replies(store: SQLiteStore, fake: FakeTelegram) -> None:
    fake.histories[NEWS.id] = [
        tl.MessageService(
            id=1,
            peer_id=tl.PeerChannel(NEWS.id),
            date=BASE_TIME,
            action=tl.MessageActionChannelCreate(title="Daily News"),
            post=True,
        ),
        text_message(NEWS, 2, "first post", sender=None),
        text_message(
            NEWS, 3, "", sender=None, media=tl.MessageMediaPhoto(photo=tl.PhotoEmpty(id=1))
        ),
        text_message(
            NEWS, 4, "follow-up", sender=None, reply_to=tl.MessageReplyHeader(reply_to_msg_id=2)
        ),
    ]
    report = sync(store, fake, parse_ref("t.me/s/dailynews"))
    assert report.source.kind is SourceKind.CHANNEL
    rows = store.get_messages(report.source.id, [1, 2, 3, 4])
    assert [(m.is_service, m.media, m.reply_to) for m in rows] == [
        (True, None, None),
        (False, None, None),
        (False, "photo", None),
        (False, None, 2),
    ]
    assert rows[0].text == "Daily News created the channel «Daily News»"
    assert store.count_messages(report.source.id) == 3  # the service message is not counted


def test_private_source_by_internal_id(store: SQLiteStore, fake: FakeTelegram) -> None:
    fake.histories[PRIVATE.id] = history(PRIVATE, range(1, 4))
    report = sync(store, fake, parse_ref("https://t.me/c/555003/2"))
    assert (report.source.handle, report.source.internal_id) == (None, PRIVATE.id)
    assert report.source.key == "c/555003"
    assert stored_ids(store, report.source.id) == [1, 2, 3]


def test_sync_names_a_source_first_imported_without_handle(
    store: SQLiteStore, fake: FakeTelegram
) -> None:
    imported = store.upsert_source(
        title="Open Talk (export)", kind=SourceKind.CHAT, internal_id=TALK.id
    )
    store.upsert_messages(
        [Message(imported.id, 1, BASE_TIME, "message number 1", "user102", "Bob")]
    )
    report = sync(store, fake)
    assert report.source.id == imported.id
    assert report.source.handle == "open_talk"
    assert stored_ids(store, imported.id) == list(range(1, N + 1))


def test_progress_bar_on_stderr(
    store: SQLiteStore, fake: FakeTelegram, capsys: pytest.CaptureFixture[str]
) -> None:
    sync(store, fake, progress=True)
    assert f"{N}msg" in capsys.readouterr().err.replace(" ", "")


def test_run_sync_connects_and_always_disconnects(store: SQLiteStore, fake: FakeTelegram) -> None:
    report = run_sync(
        store, TelethonMessengerClient(fake), TALK_REF, batch_size=10, flood_sleep_threshold=0
    )
    assert report.fetched == N
    assert not fake.connected
    fake.faults.append(Fault(call=1, after=0, error=flood(30)))
    fake.histories[TALK.id] += history(TALK, [N + 1])
    with pytest.raises(RateLimited):
        run_sync(
            store, TelethonMessengerClient(fake), TALK_REF, batch_size=10, flood_sleep_threshold=0
        )
    assert not fake.connected


class FailingWatermarkStore(SQLiteStore):
    """A store whose watermark write fails on the n-th call (a disk-full stand-in)."""

    def __init__(self, fail_on: int) -> None:
        super().__init__(":memory:")
        self.fail_on, self.calls = fail_on, 0

    def set_watermark(self, source_id: int, message_id: int, synced_at: datetime) -> None:
        self.calls += 1
        if self.calls == self.fail_on:
            raise StoreError("disk full")
        super().set_watermark(source_id, message_id, synced_at)


def test_batch_and_watermark_commit_together(fake: FakeTelegram) -> None:
    store = FailingWatermarkStore(fail_on=2)
    with pytest.raises(StoreError, match="disk full"):
        sync(store, fake, batch_size=5)
    source = store.get_source(TALK_REF)
    # The second batch's messages were rolled back with its failed watermark.
    assert stored_ids(store, source.id) == [1, 2, 3, 4, 5]
    assert store.get_watermark(source.id) == 5
    report = sync(store, fake, batch_size=5)
    assert fake.calls[-1]["min_id"] == 5
    assert (report.result.inserted, report.result.unchanged) == (N - 5, 0)


class FloodingResolve(FakeTelegram):
    """A fake whose first ``seconds``-long FloodWaits hit the handle lookup."""

    def __init__(self, waits: list[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.waits = waits

    async def get_entity(self, target: Any) -> Any:
        if self.waits:
            raise flood(self.waits.pop(0))
        return await super().get_entity(target)


def test_short_flood_wait_while_resolving_is_slept(store: SQLiteStore) -> None:
    fake = FloodingResolve([3], entities=[TALK], histories={TALK.id: history(TALK, range(1, 4))})
    sleeper = Sleeper()
    report = sync(store, fake, threshold=10, sleeper=sleeper)
    assert sleeper.waits == [3]
    assert report.fetched == 3


def test_long_flood_wait_while_resolving_raises(store: SQLiteStore) -> None:
    fake = FloodingResolve([30], entities=[TALK], histories={TALK.id: history(TALK, range(1, 4))})
    sleeper = Sleeper()
    with pytest.raises(RateLimited) as info:
        sync(store, fake, threshold=10, sleeper=sleeper)
    assert info.value.retry_after == 30
    assert sleeper.waits == []
    assert store.find_source(TALK_REF) is None
