"""A source summary reads the source's whole life and says so: "This summary reads 40 of
its 1,200 messages, sampled from 2019 to 2026.", in the language asked, and every count
says what it counts ("41 participants have written in it, 9 of them in the messages
read"); a source read whole says nothing about sampling."""

from __future__ import annotations

import pytest
from garden_chat import COUNT, garden
from summary_data import about_source

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.models import SourceKind
from toolkit.store.base import MessageStore
from toolkit.summarize import summarize_source
from toolkit.summarize.coverage import note, read_source
from toolkit.summarize.period_wording import find_period_wording


@pytest.mark.parametrize(
    ("language", "opening", "read"),
    [
        (
            "en",
            "“Garden club” is a chat: 41 participants have written in it, {n} of them in the "
            "messages read.",
            "This summary reads 40 of its 1,200 messages, sampled from 2019 to 2026.",
        ),
        (
            "ru",
            "«Garden club» — чат, в нём писали 41 участник; в прочитанных сообщениях — {n} из них.",
            "В сводке прочитано 40 из 1200 сообщений — выборка с 2019 по 2026 год.",
        ),
        (
            "uk",
            "«Garden club» — чат, у ньому писали 41 учасник; у прочитаних повідомленнях — {n} "
            "з них.",
            "У зведенні прочитано 40 з 1200 повідомлень — вибірка з 2019 до 2026 року.",
        ),
    ],
)
@pytest.mark.slow
def test_the_summary_says_what_it_read_and_what_each_count_counts(
    store: MessageStore, embedder: Embedder, language: str, opening: str, read: str
) -> None:
    source = garden(store)
    settings = Settings(summary={"engine": "extractive"})
    request = about_source("@garden_club", language, messages_limit=40)
    summary = summarize_source(store, embedder, settings, request)
    messages, _ = read_source(store, source.id, 40)
    readers = len({m.sender_peer_id for m in messages})
    assert summary.summary.startswith(f"{opening.format(n=readers)} {read} "), summary.summary
    # The one sentence with dates is the one that says what was read.
    rest = summary.summary.replace(read, "")
    assert find_period_wording(rest) == []
    for section in summary.sections:
        assert find_period_wording(section.title + "\n" + section.body) == []
    # The bare photo and the service message are never read.
    assert str(COUNT + 1) not in summary.important_messenger_message_ids


@pytest.mark.slow
def test_the_settings_say_how_many_a_source_summary_reads_by_default(
    store: MessageStore, embedder: Embedder
) -> None:
    source = garden(store)
    settings = Settings(summary={"engine": "extractive", "source_messages": 60})
    summary = summarize_source(store, embedder, settings, about_source("@garden_club", "en"))
    _, default = read_source(store, source.id, 60)
    assert note(pack("en"), default, SourceKind.CHAT) in summary.summary
    assert "reads 60 of its 1,200 messages" in summary.summary


@pytest.mark.slow
def test_a_summary_of_every_message_says_nothing_about_sampling(
    store: MessageStore, embedder: Embedder
) -> None:
    garden(store, count=120)
    settings = Settings(summary={"engine": "extractive"})
    summary = summarize_source(store, embedder, settings, about_source("@garden_club", "en"))
    assert "reads" not in summary.summary
    assert summary.summary.startswith(
        "“Garden club” is a chat: 41 participants have written in it, 40 of them in the "
        "messages read. "  # the photo's sender wrote no text
    )
