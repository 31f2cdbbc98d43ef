"""``with_comments``: a channel's comments land in its discussion group, replying to the post.

Served by the offline fake over real Telethon objects (``telethon_fakes``), as every
live sync test is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from telethon_fakes import DISCUSSION, NEWS, Fault, commented_news, flood, text_message

from toolkit.errors import InvalidRequest
from toolkit.ingest.live.client import TelethonMessengerClient
from toolkit.ingest.live.sync import run_sync
from toolkit.models import SourceKind, SourceRef
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore

NEWS_REF = parse_ref("@dailynews")
GROUP_REF = SourceRef(raw=f"c/{DISCUSSION.id}", internal_id=DISCUSSION.id)


@pytest.fixture
def db(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "store.sqlite3")


class Sleeper:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_comments_are_stored_in_the_discussion_group_replying_to_their_post(
    db: SQLiteStore,
) -> None:
    fake = commented_news()
    report = run_sync(
        db,
        TelethonMessengerClient(fake),
        NEWS_REF,
        batch_size=2,
        flood_sleep_threshold=5,
        with_comments=True,
    )
    assert report.fetched == 4
    assert report.comments == 6  # two copies, four comments
    assert report.discussion is not None
    assert report.discussion.internal_id == DISCUSSION.id
    group = db.get_source(GROUP_REF)
    assert (group.title, group.kind) == ("Daily News Chat", SourceKind.CHAT)
    stored = {m.messenger_message_id: m for m in db.messages_in_period(group.id)}
    assert sorted(stored) == [101, 103, 110, 111, 112, 120]
    assert stored[101].text == "Road works on Main Street"
    assert stored[101].forwarded_from == "Daily News"
    assert [stored[i].reply_to for i in (110, 111, 112, 120)] == [101, 101, 110, 103]
    assert stored[112].sender_name == "Carol"
    # The comments do not move the group's watermark: its own history is not synced.
    assert db.get_watermark(group.id) is None
    # The channel itself is as a sync without comments leaves it.
    assert db.count_messages(db.get_source(NEWS_REF).id) == 4


def test_without_the_option_no_comment_is_read(db: SQLiteStore) -> None:
    fake = commented_news()
    report = run_sync(
        db, TelethonMessengerClient(fake), NEWS_REF, batch_size=10, flood_sleep_threshold=5
    )
    assert (report.comments, report.discussion) == (0, None)
    assert not any(c.get("reply_to") for c in fake.calls)
    assert [s.source.internal_id for s in db.list_sources()] == [NEWS.id]


def test_an_incremental_sync_reads_the_comments_of_new_posts_only(db: SQLiteStore) -> None:
    fake = commented_news()
    client = TelethonMessengerClient(fake)
    run_sync(db, client, NEWS_REF, batch_size=10, flood_sleep_threshold=5, with_comments=True)
    fake.histories[NEWS.id].append(text_message(NEWS, 5, "Nothing to discuss", sender=None))
    again = run_sync(
        db, client, NEWS_REF, batch_size=10, flood_sleep_threshold=5, with_comments=True
    )
    assert (again.fetched, again.comments) == (1, 0)
    full = run_sync(
        db, client, NEWS_REF, batch_size=10, flood_sleep_threshold=5, with_comments=True, full=True
    )
    assert (full.comments, full.comments_result.unchanged) == (6, 6)


def test_a_short_flood_wait_in_comments_is_slept_without_duplicates(db: SQLiteStore) -> None:
    fake = commented_news()
    fake.comment_faults = [Fault(call=0, after=1, error=flood(3))]
    sleeper = Sleeper()
    import asyncio

    from toolkit.ingest.live.sync import sync_source

    async def go() -> int:
        client = TelethonMessengerClient(fake)
        report = await sync_source(
            db,
            client,
            NEWS_REF,
            batch_size=1,
            flood_sleep_threshold=5,
            sleep=sleeper,
            with_comments=True,
        )
        return report.comments

    assert asyncio.run(go()) == 6
    assert sleeper.waits == [3]
    group = db.get_source(GROUP_REF)
    assert db.count_messages(group.id) == 6


def test_a_client_that_cannot_read_comments_is_told_at_once(db: SQLiteStore) -> None:
    class Plain:
        async def connect(self) -> None: ...
        async def disconnect(self) -> None: ...

    with pytest.raises(InvalidRequest, match="cannot read comments"):
        run_sync(db, Plain(), NEWS_REF, batch_size=1, flood_sleep_threshold=1, with_comments=True)  # type: ignore[arg-type]
