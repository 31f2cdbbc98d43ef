"""Both stores: alerts, the claim of their posts (once, whoever asks, never the same
message twice), takeover of a post whose lease ran out, results, an uncertain post
resent, the hour's count, removal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from delivery_fakes import race
from delivery_rows import email_alert
from store_backends import Store

from toolkit.models import Message, Source
from toolkit.store.alert_rows import AlertRecord, NewMessages, NewPost, PostRecord

pytestmark = pytest.mark.both_stores

T0 = datetime(2024, 3, 1, 7, 0, tzinfo=UTC)
LEASE = timedelta(minutes=15)


@pytest.fixture
def alert(store: Store, team: Source) -> AlertRecord:
    store.upsert_messages(
        Message(source_id=team.id, messenger_message_id=i, posted_at=T0, text=f"m{i}")
        for i in (1, 2, 3)
    )
    return store.add_alert(
        email_alert("boat", ["@team_chat"], max_per_hour=5, created_at=T0, watermarks={team.id: 1})
    )


def claim(
    store: Store, alert: AlertRecord, owner: str, message_id: int | None, *, version: int = 0
) -> list[PostRecord] | None:
    source_id = next(iter(alert.watermarks))
    return store.claim_alert(
        alert.id,
        version=version,
        watermarks={source_id: 3},
        held=0,
        held_since=None,
        posts=[NewPost(source_id=source_id, message_id=message_id, body="{}")],
        owner=owner,
        lease_until=T0 + LEASE,
        now=T0,
    )


def test_an_alert_is_stored_with_its_watermarks(store: Store, alert: AlertRecord) -> None:
    assert store.list_alerts() == [alert]
    assert store.get_alert(alert.id) == alert
    assert (alert.version, alert.held, alert.min_score) == (0, 0, 0.3)
    source_id = next(iter(alert.watermarks))
    assert store.messages_after(source_id, 1) == NewMessages(2, 3, T0, 3)
    assert store.messages_after(source_id, 3) == NewMessages(0, 3, None, 0)
    assert store.last_message_ids() == {source_id: 3}


def test_a_claim_is_made_once_and_a_message_never_twice(store: Store, alert: AlertRecord) -> None:
    first = claim(store, alert, "a", 2)
    assert first is not None
    assert [(p.message_id, p.status, p.owner) for p in first] == [(2, "claimed", "a")]
    assert claim(store, alert, "b", 2) is None  # b read version 0 too
    assert claim(store, alert, "b", 2, version=1) is None  # the same message, never again
    moved = store.get_alert(alert.id)
    assert moved is not None
    assert moved.version == 1  # the refused claim wrote nothing
    assert moved.watermarks == {next(iter(alert.watermarks)): 3}
    assert store.posts_since(alert.id, T0) == 1
    assert store.posts_since(alert.id, T0 + timedelta(seconds=1)) == 0


def test_racing_threads_claim_once(store: Store, alert: AlertRecord) -> None:
    claims = race(*(partial(claim, store, alert, f"w{i}", 3) for i in range(6)))
    assert sum(bool(posts) for posts in claims) == 1


def test_a_post_is_taken_over_after_its_lease_and_its_results_kept(
    store: Store, alert: AlertRecord
) -> None:
    (post,) = claim(store, alert, "a", 2) or []
    assert store.open_posts(T0) == []
    assert store.take_over_post(post.id, owner="b", lease_until=T0 + LEASE, now=T0) is None
    later = T0 + LEASE
    assert [p.id for p in store.open_posts(later)] == [post.id]
    taken = store.take_over_post(post.id, owner="b", lease_until=later + LEASE, now=later)
    assert taken is not None
    assert taken.owner == "b"
    ledger = store.post_ledger()
    assert not ledger.update_run(post.id, owner="a", lease_until=later)  # a lost it
    ledger.set_result(post.id, 0, state="sent", attempts=1, detail="ok", now=later)
    assert ledger.update_run(
        post.id, owner="b", lease_until=later, status="done", finished_at=later
    )
    assert store.results([post.id]) == []  # a run's ledger is another
    (result,) = ledger.results([post.id])
    assert (result.destination, result.state, result.detail) == (0, "sent", "ok")
    assert store.recent_posts(alert.id)[0].status == "done"
    assert store.open_posts(later + LEASE) == []
    assert store.remove_alert(alert.id)
    assert ledger.results([post.id]) == []
    assert store.list_alerts() == []
    assert not store.remove_alert(alert.id)


def test_an_uncertain_post_is_opened_again_when_resent_through_its_ledger(
    store: Store, alert: AlertRecord
) -> None:
    (post,) = claim(store, alert, "a", 2) or []
    ledger = store.post_ledger()
    ledger.set_result(post.id, 0, state="uncertain", attempts=1, detail="?", now=T0)
    assert ledger.update_run(post.id, owner="a", lease_until=T0, status="done", finished_at=T0)
    assert store.resend_uncertain(alert.id, now=T0) == []  # the runs' ledger has none
    assert ledger.resend_uncertain(alert.id + 1, now=T0) == []  # another alert
    assert ledger.resend_uncertain(alert.id, now=T0) == [post.id]
    (result,) = ledger.results([post.id])
    assert (result.state, result.attempts) == ("failed", 0)
    assert [p.id for p in store.open_posts(T0)] == [post.id]  # the next pass sends it
    assert ledger.resend_uncertain(alert.id, now=T0) == []
