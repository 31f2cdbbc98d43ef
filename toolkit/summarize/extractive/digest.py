"""The extractive engine's prose: connective sentences around quoted messages.

The summary names who wrote and what about (the main topics' distinctive words), then
quotes key messages: the message that opened the main topic, and the most important
other one, preferably from another topic. A long message is quoted by its key
sentence: the one sharing most content words with the rest of the messages.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toolkit.models import Message, SourceKind
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.templates import Phrasebook
from toolkit.summarize.extractive.tokens import content_words, quotable, script
from toolkit.summarize.period_wording import split_sentences

SUMMARY_QUOTE_CHARS = 140
# A quote opens the summary only if it says something: "hi" does not.
MIN_OPENER_WORDS = 2
OPENER_QUANTILE = 0.25
MIN_QUOTE_WORDS = 4
MAX_SUMMARY_TOPICS = 3
_SCRIPT = {"en": "latin", "ru": "cyrillic"}


@dataclass(frozen=True)
class Draft:
    """Everything the engine knows about the messages of one summary."""

    messages: list[Message]
    ctx: SummaryContext
    texts: list[str]
    terms: list[list[tuple[str, str]]]
    sizes: list[int]
    labels: npt.NDArray[np.int_]
    central: npt.NDArray[np.float64]
    importance: npt.NDArray[np.float64]
    quality: npt.NDArray[np.float64]
    titles: dict[int, list[str]]

    def members(self, label: int) -> list[int]:
        """Indices of the messages in one cluster, in posting order."""
        return [i for i, lab in enumerate(self.labels.tolist()) if lab == label]

    def representatives(self, indices: list[int], count: int) -> list[int]:
        """The ``count`` most central of ``indices``, messages that say something first.

        Short replies ("solo stuff", "que bien") sit close to a cluster's centre too, so
        messages of ``MIN_QUOTE_WORDS`` content words or more go first; messages with no
        content word at all only when nothing else is left.
        """

        def rank(i: int) -> tuple[int, float, int]:
            tier = 0 if self.sizes[i] >= MIN_QUOTE_WORDS and self.quality[i] > 0.1 else 1
            if self.sizes[i] == 0:
                tier = 2
            return tier, -(self.central[i] * self.quality[i]), i

        ranked = sorted(indices, key=rank)
        said = [i for i in ranked if self.sizes[i] > 0]
        return (said or ranked)[:count]


def author(message: Message) -> str:
    """The name a quote is attributed to."""
    return message.sender_name or message.sender_peer_id or "?"


def key_sentence(draft: Draft, i: int, limit: int) -> str:
    """The sentence of message ``i`` that shares most content words with the others."""
    sentences = [s.strip() for s in split_sentences(draft.texts[i]) if s.strip()]
    if len(sentences) <= 1:
        return quotable(draft.texts[i], limit)
    df: Counter[str] = Counter()
    for words in draft.terms:
        df.update({stem for stem, _ in words})

    def shared(sentence: str) -> float:
        stems = {stem for stem, _ in content_words(sentence)}
        return sum(df[s] > 1 for s in stems) + 0.1 * len(stems)

    best = max(range(len(sentences)), key=lambda j: (shared(sentences[j]), -j))
    return quotable(sentences[best], limit)


def quote(book: Phrasebook, draft: Draft, i: int, limit: int, *, whole: bool = False) -> str:
    """Message ``i`` quoted in its own language, with its author in chats."""
    text = quotable(draft.texts[i], limit) if whole else key_sentence(draft, i, limit)
    quoted = book.quote(text)
    if draft.ctx.kind is SourceKind.CHANNEL:
        return quoted
    return f"{author(draft.messages[i])}: {quoted}"


def who(book: Phrasebook, authors: Counter[str], shown: int = 3) -> str:
    """The most active authors, then how many others."""
    names = [name for name, _ in authors.most_common(shown)]
    if len(authors) > shown:
        return book.join([*names, book.others(len(authors) - shown)])
    return book.join(names)


def key_messages(draft: Draft) -> list[int]:
    """Two messages to quote, in posting order (one for three messages or fewer).

    A period summary quotes the message that opened its main topic (how it started); a
    source summary the main topic's most typical message. The second quote is the most
    important other message, from another topic when there is one.
    """
    main = draft.members(0)
    if draft.ctx.family == "source":
        opener = draft.representatives(main, 1)[0]
    else:
        # The earliest of the main topic's more representative half: "ok" or an aside
        # that happens to come first does not open a topic.
        typical = draft.central[main] * draft.quality[main]
        floor = float(np.quantile(typical, OPENER_QUANTILE))
        opener = next(
            (
                i
                for i, score in zip(main, typical, strict=True)
                if score >= floor and draft.sizes[i] >= MIN_OPENER_WORDS
            ),
            main[int(np.argmax(typical))],
        )
    if len(draft.messages) <= 3:
        return [opener]
    score = draft.importance * draft.quality
    others = sorted((i for i in range(len(draft.messages)) if i != opener), key=lambda i: -score[i])
    other_topic = [i for i in others if draft.labels[i] != draft.labels[opener]]
    candidates = other_topic or others
    full = [i for i in candidates if draft.sizes[i] >= MIN_QUOTE_WORDS]
    pick = (full or candidates)[:1]
    return sorted([opener, *pick])


def _topics(draft: Draft) -> tuple[list[str], list[str]]:
    """The main topic's words, and every topic as one comma-joined string."""
    topics = [", ".join(words) for _, words in sorted(draft.titles.items()) if words]
    return draft.titles.get(0) or [], topics[:MAX_SUMMARY_TOPICS]


def _opening(book: Phrasebook, draft: Draft, authors: Counter[str]) -> str:
    ctx = draft.ctx
    main, topics = _topics(draft)
    title = book.quote(ctx.title)
    if ctx.family == "source":
        if ctx.kind is SourceKind.CHANNEL:
            first = book.say("source_channel", title=title)
        elif len(authors) == 1:
            first = book.say("source_chat_one", title=title, who=who(book, authors))
        else:
            first = book.say(
                "source_chat",
                title=title,
                participants=book.participants(len(authors)),
                who=who(book, authors),
            )
        if not topics:
            return first
        key = "source_topics_channel" if ctx.kind is SourceKind.CHANNEL else "source_topics_chat"
        return f"{first} {book.say(key, topics='; '.join(topics))}"
    if ctx.kind is SourceKind.CHANNEL:
        prefix, plain = (
            "channel",
            book.say("channel_plain", title=title, posts=book.posts(len(draft.messages))),
        )
    else:
        prefix = "author" if len(authors) == 1 else "chat"
        plain = book.say(
            "chat_plain", messages=book.messages(len(draft.messages)), who=who(book, authors)
        )
    values = {"who": who(book, authors), "title": title}
    if len(topics) > 1:
        return book.say(f"{prefix}_topics", topics="; ".join(topics), **values)
    if main:
        return book.say(f"{prefix}_topic", terms=book.join(main), **values)
    return plain


def summary_text(book: Phrasebook, draft: Draft, authors: Counter[str]) -> str:
    """The ``summary`` field: who and what about, then key quotes (and a note on them)."""
    sentences = [_opening(book, draft, authors)]
    chosen = key_messages(draft)
    quotes = [quote(book, draft, i, SUMMARY_QUOTE_CHARS) for i in chosen]
    prefix = "typical" if draft.ctx.family == "source" else "key"
    suffix = "_channel" if draft.ctx.kind is SourceKind.CHANNEL else ""
    if len(quotes) == 1:
        sentences.append(book.say(f"{prefix}_one{suffix}", quote=quotes[0]))
    else:
        sentences.append(book.say(f"{prefix}_many{suffix}", quotes="; ".join(quotes)))
    if any(script(draft.texts[i]) not in (None, _SCRIPT[book.code]) for i in chosen):
        sentences.append(book.say("original_language"))
    return " ".join(sentences)
