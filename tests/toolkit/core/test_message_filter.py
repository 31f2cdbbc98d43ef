"""``MessageFilter``: what a store read takes, as the requests resolve it and as SQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from toolkit.errors import InvalidRequest
from toolkit.models import MessageFilter, NewApiKey
from toolkit.requests import SearchRequest, SourceSummaryRequest, SummaryRequest
from toolkit.store.rows import filter_clause

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def test_the_default_takes_everything_but_service_messages() -> None:
    where = MessageFilter()
    assert not where.narrows
    assert (where.include_service, where.with_text_only) == (False, False)
    assert filter_clause(where, arrays=False) == (" AND NOT is_service", [])
    assert where.searchable() == MessageFilter(with_text_only=True)


def test_senders_are_a_tuple_without_repeats_and_times_are_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    where = MessageFilter(
        since=datetime(2026, 3, 2, 14, 0, tzinfo=plus_two),
        before=datetime(2026, 3, 3, 12, 0),  # naive: taken as UTC
        sender_peer_ids=["user2", "user1", "user2"],
    )
    assert where.sender_peer_ids == ("user2", "user1")
    assert (where.since, where.before) == (T0, T0 + timedelta(days=1))
    assert getattr(where.since, "tzinfo", None) is UTC
    assert where.narrows
    assert hash(where) == hash(replace(where))  # frozen and hashable: a cache key
    assert MessageFilter(sender_peer_ids="user7").sender_peer_ids == ("user7",)
    assert MessageFilter(sender_peer_ids=[]).sender_peer_ids == ()


def test_one_clause_per_bound_rounded_inwards() -> None:
    half = timedelta(milliseconds=500)
    where = MessageFilter(
        since=T0 + half,
        until=T0 + timedelta(minutes=5) + half,
        before=T0 + timedelta(minutes=9) + half,
        topic_id=3,
        sender_peer_ids=["user1", "user2"],
        include_service=True,
        with_text_only=True,
    )
    start = int(T0.timestamp())
    clause, params = filter_clause(where, arrays=False)
    assert clause == (
        " AND topic_id = ? AND sender_peer_id IN (?,?) AND posted_at >= ?"
        " AND posted_at <= ? AND posted_at < ? AND text != ''"
    )
    assert params == [3, "user1", "user2", start + 1, start + 300, start + 541]
    clause, params = filter_clause(MessageFilter(sender_peer_ids=["user1"]), arrays=True)
    assert (clause, params) == (" AND sender_peer_id = ANY(?) AND NOT is_service", [["user1"]])
    # No sender matches nothing, in either dialect.
    assert filter_clause(MessageFilter(sender_peer_ids=()), arrays=False)[0].startswith(
        " AND sender_peer_id IN (NULL)"
    )


def test_each_request_resolves_its_own_filter() -> None:
    search = SearchRequest(
        source_ref="@team_chat",
        query="q",
        period_from=T0,
        period_to=T0 + timedelta(days=1),
        sender_peer_ids=["user1", "user1"],
    )
    assert search.message_filter() == MessageFilter(
        since=T0,
        until=T0 + timedelta(days=1),
        sender_peer_ids=["user1"],
        with_text_only=True,
    )
    period = SummaryRequest(
        source_ref="@team_chat", started_at=T0, ended_at=T0 + timedelta(days=1), language="en"
    )
    assert period.message_filter(4) == MessageFilter(
        since=T0, before=T0 + timedelta(days=1), topic_id=4
    )
    whole = SourceSummaryRequest(source_ref="@team_chat", language="en", topic_id=2)
    assert whole.message_filter(4) == MessageFilter(topic_id=2, with_text_only=True)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"topic_id": 0}, "topic_id"),
        ({"topic_id": True}, "topic_id"),
        ({"sender_peer_ids": []}, "sender_peer_ids"),
        ({"sender_peer_ids": ["bob"]}, "sender_peer_ids"),
    ],
)
def test_a_bad_topic_or_sender_is_refused_naming_it(fields: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequest) as caught:  # the request refuses to be made
        SourceSummaryRequest(source_ref="@team_chat", language="en", **fields)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_a_new_key_keeps_its_scopes_as_a_set() -> None:
    key = NewApiKey(name="ci", prefix="mlk_ab", key_hash="h" * 64, scopes=["b", "a", "b"])
    assert key.scopes == frozenset({"a", "b"})
    assert key.created_at is None
