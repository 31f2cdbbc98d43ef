"""What a source summary reads of its source (on both stores): a sample spread over its
whole life when it has more messages than it reads, and the sentence that says so in
each language, plurals and years included (``test_source_summary`` reads the summaries)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from garden_chat import COUNT, PEOPLE, T0, T1, garden
from store_backends import Store

from toolkit.lang import pack
from toolkit.models import MessageFilter, SourceKind
from toolkit.summarize.coverage import Coverage, note, read_source

pytestmark = pytest.mark.both_stores


def test_a_big_source_is_read_as_a_sample_across_its_whole_life(store: Store) -> None:
    source = garden(store)
    messages, coverage = read_source(store, source.id, 100)
    assert len(messages) == 100
    assert [m.posted_at for m in messages] == sorted(m.posted_at for m in messages)
    assert {m.posted_at.year for m in messages} == set(range(2019, 2027))  # every year
    assert coverage is not None
    assert (coverage.total, coverage.read, coverage.sampled) == (COUNT, 100, True)
    step = timedelta(minutes=(T1 - T0) // timedelta(minutes=1) // (COUNT - 1))
    assert (coverage.first, coverage.last) == (T0, T0 + step * (COUNT - 1))
    assert coverage.writers == PEOPLE + 1  # the photo's sender has written too
    assert coverage.readers == len({m.sender_peer_id for m in messages})
    # Deterministic: the same request reads the same messages.
    again, _ = read_source(store, source.id, 100)
    assert [m.messenger_message_id for m in again] == [m.messenger_message_id for m in messages]


def test_a_source_with_no_more_messages_than_asked_is_read_whole(store: Store) -> None:
    source = garden(store)
    messages, coverage = read_source(store, source.id, 5000)
    assert len(messages) == COUNT
    assert coverage is not None
    assert not coverage.sampled
    assert note(pack("en"), coverage, SourceKind.CHAT) == ""
    assert read_source(store, source.id + 1000, 10) == ([], None)


def test_the_sample_is_taken_after_the_sender_filter(store: Store) -> None:
    source = garden(store)
    messages, coverage = read_source(store, source.id, 10, MessageFilter(sender_peer_ids=["user7"]))
    assert {m.sender_peer_id for m in messages} == {"user7"}
    assert coverage is not None
    assert (coverage.total, coverage.read) == (COUNT // PEOPLE, 10)
    assert coverage.writers == PEOPLE + 1  # the source's people, whoever is asked for
    assert coverage.readers == 1


_START = datetime(2026, 9, 20, 18, 37, tzinfo=UTC)


@pytest.mark.parametrize(
    ("language", "kind", "total", "first", "expected"),
    [
        ("en", SourceKind.CHAT, 2538, _START,
         "This summary reads 500 of its 2,538 messages, sampled from 20 September to "
         "27 October 2026."),
        ("ru", SourceKind.CHAT, 2531, _START,
         "В сводке прочитано 500 из 2531 сообщения — выборка с 20 сентября по 27 октября "
         "2026 года."),
        ("ru", SourceKind.CHANNEL, 12431, _START - timedelta(days=30),
         "В сводке прочитано 500 из 12\u00a0431 публикации — выборка с 21 августа по 27 "
         "октября 2026 года."),
        ("uk", SourceKind.CHAT, 2550, _START,
         "У зведенні прочитано 500 з 2550 повідомлень — вибірка з 20 вересня до 27 жовтня "
         "2026 року."),
        ("uk", SourceKind.CHANNEL, 521, _START - timedelta(days=40),
         "У зведенні прочитано 500 з 521 допису — вибірка з 11 серпня до 27 жовтня "
         "2026 року."),
        ("en", SourceKind.CHANNEL, 12431, datetime(2025, 12, 1, tzinfo=UTC),
         "This summary reads 500 of its 12,431 posts, sampled from 1 December 2025 to "
         "27 October 2026."),
        ("ru", SourceKind.CHAT, 900, datetime(2026, 10, 27, 1, tzinfo=UTC),
         "В сводке прочитано 500 из 900 сообщений — выборка за 27 октября 2026 года."),
    ],
)  # fmt: skip
def test_the_read_sentence_counts_in_each_language(
    language: str, kind: SourceKind, total: int, first: datetime, expected: str
) -> None:
    coverage = Coverage(
        total=total,
        read=500,
        first=first,
        last=datetime(2026, 10, 27, 19, 8, tzinfo=UTC),
        writers=82,
        readers=18,
    )
    assert note(pack(language), coverage, kind) == expected
    assert note(None, coverage, kind) == ""  # a language without a pack: the LLM's words


def test_the_read_sentence_gives_days_in_the_sources_zone() -> None:
    coverage = Coverage(
        total=900,
        read=500,
        first=datetime(2026, 3, 1, 9, tzinfo=UTC),
        last=datetime(2026, 12, 31, 22, tzinfo=UTC),  # 1 January 2027 in Tokyo
        writers=5,
        readers=5,
    )
    tokyo = ZoneInfo("Asia/Tokyo")
    assert note(pack("en"), coverage, SourceKind.CHAT, tokyo) == (
        "This summary reads 500 of its 900 messages, sampled from 1 March 2026 to 1 January 2027."
    )
    assert note(pack("en"), coverage, SourceKind.CHAT).endswith("to 31 December 2026.")
