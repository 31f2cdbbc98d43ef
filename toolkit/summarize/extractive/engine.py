"""The extractive engine: the embedded default, no network and no LLM.

Topic sections come from clusters of message vectors (in a summary of a whole forum,
from its topics, titled with the topic's title first); a section's title is its
cluster's most distinctive words, its body a count line and its most representative
messages, quoted (trimmed, with author and a link built in code). Important ids rank
messages by centrality, replies received and length. The ``summary`` is a few
connective sentences in the requested language around quotes that stay in their own
language (``compose.py``); it never claims a translation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import GENERAL_TOPIC, Message, Section, SourceKind, Summary
from toolkit.summarize.context import SummaryContext, forum_topics, message_text
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.extractive.acts import is_placeholder
from toolkit.summarize.extractive.clusters import Matrix, centrality, centred, cluster, importance
from toolkit.summarize.extractive.digest import digest
from toolkit.summarize.extractive.draft import Draft, author, quote
from toolkit.summarize.extractive.keyphrases import key_phrases, message_terms
from toolkit.summarize.extractive.templates import Phrasebook, phrasebook
from toolkit.summarize.extractive.vectors import vectors_for
from toolkit.summarize.period_wording import has_period_wording

ENGINE = "extractive"
# Bump when the output for the same input changes (part of the cache key).
EXTRACTIVE_VERSION = "28"
SECTION_QUOTES = 3
SECTION_QUOTE_CHARS = 220
MAX_IMPORTANT = 10


def forum_sections(
    messages: Sequence[Message], ctx: SummaryContext
) -> tuple[npt.NDArray[np.int_], dict[int, str]] | None:
    """Section labels by forum topic (busiest first) and each label's topic title, when
    the messages of a forum summary span several topics; else ``None`` (clusters)."""
    topics = forum_topics(messages, ctx)
    if len(topics) < 2:
        return None
    label_of = {topic: label for label, (topic, _) in enumerate(topics)}
    labels = [label_of[m.topic_id or GENERAL_TOPIC] for m in messages]
    return np.array(labels, dtype=np.int_), {
        label: title for label, (_, title) in enumerate(topics)
    }


def _draft(messages: Sequence[Message], vectors: Matrix, ctx: SummaryContext) -> Draft:
    texts = [message_text(m) for m in messages]
    # An attachment's marker ("<photo>") has no words to be a topic.
    spoken = ["" if is_placeholder(t) else t for t in texts]
    terms = message_terms(spoken)
    sizes = [len(t) for t in terms]
    unit = centred(np.asarray(vectors, dtype=np.float32))
    # A forum's topics are its sections: a section never mixes two topics' messages.
    by_topic = forum_sections(messages, ctx)
    labels, headings = by_topic if by_topic is not None else (cluster(unit), {})
    central = centrality(unit, labels)
    # Quotes avoid one-word messages and, in source summaries, period wording.
    quality = np.array([min(1.0, (s + 1) / 8) for s in sizes])
    if ctx.family == "source":
        quality *= np.array([0.05 if has_period_wording(t) else 1.0 for t in texts])
    keep: Callable[[str], bool] = (
        (lambda word: not has_period_wording(word)) if ctx.family == "source" else (lambda _: True)
    )
    return Draft(
        messages=list(messages),
        ctx=ctx,
        texts=texts,
        terms=terms,
        sizes=sizes,
        labels=labels,
        central=central,
        importance=importance(messages, central, sizes),
        quality=quality,
        titles=key_phrases(spoken, labels, keep=keep),
        df=dict(Counter(stem for words in terms for stem in {s for s, _ in words})),
        vectors=unit,
        headings=headings,
    )


def _sections(book: Phrasebook, draft: Draft, link: Callable[[int], str]) -> list[Section]:
    sections: list[Section] = []
    labels = sorted(set(draft.labels.tolist()))
    for label in labels:
        idx = draft.members(label)
        if len(idx) < 2 and len(draft.messages) >= 10:
            continue  # a lone outlier is no topic; it still counts for importance
        if not draft.titles.get(label) and len(labels) > 1:
            continue  # a cluster of "yes" and "ok" has no words to be a topic
        rep = draft.representatives(idx, SECTION_QUOTES)
        if draft.ctx.kind is SourceKind.CHANNEL:
            head = book.say("section_channel", posts=book.posts(len(idx)))
        else:
            authors = {author(draft.messages[i]) for i in idx}
            head = book.say(
                "section_chat",
                messages=book.messages(len(idx)),
                from_participants=book.from_participants(len(authors)),
            )
        lines = [head[0].upper() + head[1:]]
        for i in sorted(rep):
            message_id = draft.messages[i].messenger_message_id
            text = quote(book, draft, i, SECTION_QUOTE_CHARS, whole=True)
            lines.append(f"— {text} ({link(message_id)})")
        words = ", ".join(draft.titles.get(label) or [])
        heading = draft.headings.get(label)
        if heading is not None:  # a forum topic: its title, then its key phrases
            title = f"{heading}: {words}" if words else heading
        else:
            title = words or book.say("other_topic")
        sections.append(Section(title=title[0].upper() + title[1:], body="\n".join(lines)))
    return sections


def summarize_extractive(
    messages: Sequence[Message],
    vectors: Matrix,
    ctx: SummaryContext,
    *,
    source_ref: str,
    link: Callable[[int], str],
) -> Summary:
    """Summarise messages with text (posting order) whose vectors are ``vectors``' rows.

    Args:
        messages: the messages; each has text (or a caption).
        vectors: one normalised embedding per message, same order.
        ctx: family, kind, title, language and period of the request.
        source_ref: the reference to echo in the result.
        link: builds a message's link from its id (links are never taken from text).

    Returns:
        The summary; an empty ``messages`` gives a summary that says there are none.

    Raises:
        UnsupportedLanguage: for a language without a phrasebook (en and ru have one).
    """
    book = phrasebook(ctx.language)
    if not messages:
        return _empty(book, ctx, source_ref)
    draft = _draft(messages, vectors, ctx)
    ranked = sorted(range(len(messages)), key=lambda i: (-draft.importance[i], i))
    count = min(MAX_IMPORTANT, max(1, round(len(messages) ** 0.5)))
    return Summary(
        source_ref=source_ref,
        summary=digest(book, draft),
        sections=_sections(book, draft, link),
        important_messenger_message_ids=[
            str(messages[i].messenger_message_id) for i in ranked[:count]
        ],
        engine=ENGINE,
        language=ctx.language,
    )


def _empty(book: Phrasebook, ctx: SummaryContext, source_ref: str) -> Summary:
    if ctx.family == "period" and ctx.started_at is not None and ctx.ended_at is not None:
        text = book.say(
            "empty_period",
            start=ctx.started_at.strftime("%Y-%m-%d %H:%M UTC"),
            end=ctx.ended_at.strftime("%Y-%m-%d %H:%M UTC"),
        )
    elif ctx.topic is not None:
        text = book.say("empty_topic", topic=book.quote(ctx.topic), title=book.quote(ctx.title))
    else:
        text = book.say("empty_source", title=book.quote(ctx.title))
    return Summary(source_ref, text, [], [], engine=ENGINE, language=ctx.language)


class ExtractiveEngine:
    """The offline ``SummaryEngine`` (``summary_engine = "extractive"``): always available."""

    name = ENGINE

    def available(self, settings: Settings) -> bool:
        """Always: it needs only the bundled embedding model."""
        return True

    def check(self, ctx: SummaryContext) -> None:
        """Raises ``UnsupportedLanguage`` for a language without templates (en and ru have)."""
        phrasebook(ctx.language)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """Algorithm version and embedding model."""
        return f"extractive|{EXTRACTIVE_VERSION}|{embedder.model_name}"

    def summarize(self, job: SummaryJob) -> Summary:
        """Summarise the job's messages from their stored (or freshly computed) vectors."""
        vectors = vectors_for(
            job.store, job.embedder, job.source.id, job.messages, job.settings.embed_batch_size
        )
        return summarize_extractive(
            job.messages, vectors, job.ctx, source_ref=job.source_ref, link=job.link
        )
