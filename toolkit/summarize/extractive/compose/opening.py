"""The digest's opening sentence: what the source is (source summaries) and what was
discussed. A whole forum's topics are named by their titles, the busiest first, "and N
more" past a few; other chats by how many conversations they had and what the main
ones were about (a talk of two or three people names them instead); a channel by what
it posted about. A source's opening says how many people have written in it and, when
the summary read a sample, how many of them in the messages read, then what it read
(``coverage.note``: "This summary reads 500 of its 12,431 messages, sampled from 2019
to 2026.").
"""

from __future__ import annotations

import itertools
from collections import Counter

from toolkit.models import SourceKind
from toolkit.summarize.context import forum_topics
from toolkit.summarize.coverage import note
from toolkit.summarize.extractive.draft.draft import Draft

MAX_TOPICS = 3
FEW_PEOPLE = 3


def topics_of(draft: Draft, phrases: list[str]) -> list[str]:
    """The main topics' key phrases: those of the largest threads, up to ``MAX_TOPICS``
    and up to the first that has none, distinct. A smaller thread's phrase never stands in
    for a larger thread without one: "discussed movie, love and game" would name side
    talk as the topics, and "the busiest were about tor and cert" would skip the second."""
    leading = list(itertools.takewhile(bool, phrases[:MAX_TOPICS]))
    return list(dict.fromkeys(leading))


def forum_titles(draft: Draft) -> list[str]:
    """The titles of the forum topics the messages are in, busiest first; empty unless
    the summary is of a whole forum."""
    return [title for _, title in forum_topics(draft.messages, draft.ctx, draft.book)]


def _source_opening(
    draft: Draft, authors: Counter[str], phrases: list[str], participants: int | None
) -> str:
    book, ctx = draft.book, draft.ctx
    channel = ctx.kind is SourceKind.CHANNEL
    total = participants if participants is not None else len(authors)
    # A topic's summary describes the topic, never the source from a topic's data.
    named = {"title": book.quote(ctx.title)}
    if ctx.topic is not None:
        named["topic"] = book.quote(ctx.topic)
    prefix = "source" if ctx.topic is None else "source_topic"
    if channel:
        first = book.sentence(f"{prefix}_channel", **named)
    else:
        variant = "forum" if ctx.forum and ctx.topic is None else "chat"
        # "…, 18 of them in the messages read" when they are not all of them (a sample,
        # a request for some senders).
        partly = len(authors) < total
        suffix = "_one" if total == 1 else "_read" if partly else ""
        first = book.sentence(
            f"{prefix}_{variant}{suffix}",
            participants=book.counted(total, "participant"),
            readers=book.number(len(authors)),
            **named,
        )
    first = f"{first} {note(book, ctx.coverage, ctx.kind, ctx.timezone)}".rstrip()
    titles = forum_titles(draft)
    if len(titles) == 1:
        return f"{first} {book.sentence('source_one_topic_forum', topic=book.quote(titles[0]))}"
    if titles:
        topics = book.topic_titles(titles, MAX_TOPICS)
        return f"{first} {book.sentence('source_topics_forum', topics=topics)}"
    main = topics_of(draft, phrases)
    if not main:
        return first
    key = "source_topics_channel" if channel else "source_topics_chat"
    return f"{first} {book.sentence(key, topics=book.topics(main))}"


def opening(
    draft: Draft,
    authors: Counter[str],
    phrases: list[str],
    conversations: int,
    participants: int | None = None,
) -> str | None:
    """The sentence that names the topics: always for a source; for a period, in a whole
    forum (its topics by title) or when the messages hold several threads.

    Args:
        draft: the messages.
        authors: messages per author in the window.
        phrases: the key phrase of each thread, main threads first.
        conversations: how many threads the period holds.
        participants: how many people have written in the source (source summaries).
    """
    book, ctx = draft.book, draft.ctx
    if ctx.family == "source":
        return _source_opening(draft, authors, phrases, participants)
    titles = forum_titles(draft)
    if len(titles) == 1:
        return book.sentence("forum_topic", topic=book.quote(titles[0]))
    if titles:
        return book.sentence("forum_topics", topics=book.topic_titles(titles, MAX_TOPICS))
    main = topics_of(draft, phrases)
    if len(main) < 2:
        return None
    if ctx.kind is SourceKind.CHANNEL:
        return book.sentence(
            "channel_topics", title=book.quote(ctx.title), topics=book.topics(main)
        )
    if len(authors) <= FEW_PEOPLE:
        who = book.join([book.name(a) for a, _ in authors.most_common()])
        return book.sentence("chat_people", who=who, topics=book.topics(main))
    return book.sentence(
        "chat_topics",
        conversations=book.counted(conversations, "conversation"),
        topics=book.topics(main),
    )
