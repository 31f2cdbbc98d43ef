"""The digest's opening sentence: what the source is (source summaries) and what was
discussed. A whole forum's topics are named by their titles, the busiest first, "and N
more" past a few; other sources' topics by the key phrases of their threads."""

from __future__ import annotations

from collections import Counter

from toolkit.models import SourceKind
from toolkit.summarize.context import forum_topics
from toolkit.summarize.extractive.draft import Draft
from toolkit.summarize.extractive.templates import Phrasebook

MAX_TOPICS = 3


def topics_of(draft: Draft) -> list[str]:
    """The main topics' key phrases, one per thread (largest first)."""
    out: list[str] = []
    for _, phrases in sorted(draft.titles.items()):
        if phrases and phrases[0] not in out:
            out.append(phrases[0])
    return out[:MAX_TOPICS]


def forum_titles(draft: Draft) -> list[str]:
    """The titles of the forum topics the messages are in, busiest first; empty unless
    the summary is of a whole forum."""
    return [title for _, title in forum_topics(draft.messages, draft.ctx)]


def who(book: Phrasebook, authors: Counter[str], shown: int = 3) -> str:
    """The most active authors, then how many others ("and 7 other participants")."""
    names = [name for name, _ in authors.most_common(shown)]
    if len(authors) > shown:
        return book.join([*names, book.others(len(authors) - shown)])
    return book.join(names)


def _source_opening(book: Phrasebook, draft: Draft, authors: Counter[str]) -> str:
    ctx = draft.ctx
    channel = ctx.kind is SourceKind.CHANNEL
    # A topic's summary describes the topic, never the source from a topic's data.
    named = {"title": book.quote(ctx.title)}
    if ctx.topic is not None:
        named["topic"] = book.quote(ctx.topic)
    prefix = "source" if ctx.topic is None else "source_topic"
    if channel:
        first = book.sentence(f"{prefix}_channel", **named)
    else:
        # A whole forum is called a forum (its topics follow by title).
        variant = "forum" if ctx.forum and ctx.topic is None else "chat"
        one = "_one" if len(authors) == 1 else ""  # no "the most active are Eve"
        first = book.sentence(
            f"{prefix}_{variant}{one}",
            participants=book.participants(len(authors)),
            who=who(book, authors),
            **named,
        )
    titles = forum_titles(draft)
    if len(titles) == 1:
        return f"{first} {book.sentence('source_one_topic_forum', topic=book.quote(titles[0]))}"
    if titles:
        topics = book.topic_titles(titles, MAX_TOPICS)
        return f"{first} {book.sentence('source_topics_forum', topics=topics)}"
    phrases = topics_of(draft)
    if not phrases:
        return first
    key = "source_topics_channel" if channel else "source_topics_chat"
    return f"{first} {book.sentence(key, topics=book.topics(phrases))}"


def opening(book: Phrasebook, draft: Draft, authors: Counter[str]) -> str | None:
    """The sentence that names the topics: always for a source; for a period, in a whole
    forum (its topics by title) or when the messages hold several threads."""
    ctx = draft.ctx
    if ctx.family == "source":
        return _source_opening(book, draft, authors)
    titles = forum_titles(draft)
    if len(titles) == 1:  # where in the forum the talk was
        return book.sentence("forum_topic", who=who(book, authors), topic=book.quote(titles[0]))
    if titles:
        return book.sentence(
            "forum_topics", who=who(book, authors), topics=book.topic_titles(titles, MAX_TOPICS)
        )
    topics = topics_of(draft)
    if len(topics) < 2:
        return None
    if ctx.kind is SourceKind.CHANNEL:
        return book.sentence(
            "channel_topics", title=book.quote(ctx.title), topics=book.topics(topics)
        )
    return book.sentence("chat_topics", who=who(book, authors), topics=book.topics(topics))
