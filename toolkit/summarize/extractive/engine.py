"""The extractive engine: the embedded default, no network and no LLM.

It writes in the languages it has a pack for (``toolkit.lang``), whatever
the messages' languages: each message's language is detected (``lang.detect``); the
engine's own words are the requested pack's; a message in the requested language may
be retold, one in another language is quoted short and described. Threads come from
the reply graph, adjacency, time gaps and vectors (``threads``; a channel's posts are
grouped by topic clusters, a whole forum's by its topics); the ``summary`` is a digest
of the main threads (``digest``), the sections say what was decided, what stays open,
plans and dates, links, and what each main thread was about (``sections``). Every
statement cites its messages; ``important_messenger_message_ids`` are exactly the
cited messages, the most important first. Names are written as the chat shows them;
dates show their year where the period does not give it (``LanguagePack.dated``); no
e-mail address, phone number, password, key or card number is quoted
(``toolkit.summarize.personal``). A text that recurs in the source (read with the
source's recent messages) or an advert is never a decision, a plan or a question, and a
copy of a text is never shown twice (``adverts``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta, tzinfo
from functools import partial

import numpy as np

from toolkit.config import Settings
from toolkit.embeddings import Embedder, Matrix
from toolkit.lang import find, pack
from toolkit.lang.base import LanguagePack
from toolkit.lang.chatter import without_chatter
from toolkit.lang.detect import languages
from toolkit.models import GENERAL_TOPIC, Message, SectionKind, SourceKind, Summary
from toolkit.summarize.context import SummaryContext, forum_topics, message_text
from toolkit.summarize.credentials import secret_answers
from toolkit.summarize.engine import SummaryJob
from toolkit.summarize.extractive.choose.acts import Act, is_placeholder
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.keyphrases import (
    Background,
    background,
    key_phrases,
    message_terms,
    neutral_name,
)
from toolkit.summarize.extractive.choose.scoring.model import decide, settle
from toolkit.summarize.extractive.choose.threads import Thread, threads
from toolkit.summarize.extractive.choose.turns import turns
from toolkit.summarize.extractive.compose.cite import Citer
from toolkit.summarize.extractive.compose.digest import digest
from toolkit.summarize.extractive.compose.sections import sections
from toolkit.summarize.extractive.draft.adverts import hygiene, recent
from toolkit.summarize.extractive.draft.clusters import centrality, centred, cluster, importance
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.extractive.draft.facts import fact_score
from toolkit.summarize.extractive.draft.keys import SUMMARY_VOCABULARY
from toolkit.summarize.extractive.draft.vectors import window_vectors
from toolkit.summarize.period_wording import has_period_wording
from toolkit.summarize.personal import marks_for, mask_summary

ENGINE = "extractive"
# Bump when the output for the same input changes (part of the cache key).
EXTRACTIVE_VERSION = "87"
TOPIC_SHARE = 0.2
"""The least share of a thread's messages that use its title's phrase, in a period's
digest: on real chats, titles two of fifteen or thirty messages named in passing ("Dad",
"Fun", "Thesis") misled readers, while the titles they found right were used by a
quarter to two thirds of their thread. A thread without one gets a neutral title."""


def _in_zone(message: Message, zone: tzinfo) -> Message:
    return replace(message, posted_at=message.posted_at.astimezone(zone))


def _draft(
    messages: Sequence[Message],
    vectors: Matrix,
    ctx: SummaryContext,
    book: LanguagePack,
    history: Sequence[Message] = (),
) -> Draft:
    texts = [message_text(m) for m in messages]
    for i in secret_answers(messages):  # "the login?" → "anna-k": quoted as its mask only
        texts[i] = marks_for(book.code).secret
    # An attachment's marker ("<photo>") has no words to be a topic.
    spoken = ["" if is_placeholder(t) else t for t in texts]
    langs = languages(spoken)
    # Each message's own stop words and stemmer: a Ukrainian message is read as Ukrainian.
    terms = message_terms(spoken, langs)
    sizes = [len(t) for t in terms]
    unit = centred(np.asarray(vectors, dtype=np.float32))
    # Quotes avoid one-word messages and, in source summaries, period wording.
    quality = np.array([min(1.0, (s + 1) / 8) for s in sizes])
    if ctx.family == "source":
        quality *= np.array([0.05 if has_period_wording(t) else 1.0 for t in texts])
    central = centrality(unit, np.zeros(len(messages), dtype=np.int_))
    # The requested pack itself (dated) for its own messages: the engine asks "is it
    # the book?" of a message's pack.
    found = [book if code == book.code else find(code) for code in langs]
    # Sections rank what they show by importance: the messages full of facts first.
    facts = np.array([fact_score(t, p) for t, p in zip(spoken, found, strict=True)])
    # Every day and time the digest writes is the source's own (titles and spans as the
    # lines): the messages are read in its zone once, here.
    zone = ctx.timezone
    local = [m if m.posted_at.tzinfo == zone else _in_zone(m, zone) for m in messages]
    chat = ctx.kind is not SourceKind.CHANNEL
    marks = hygiene(messages, history, chat=chat, window_packs=found)
    return Draft(
        messages=local,
        ctx=ctx,
        texts=texts,
        terms=terms,
        sizes=sizes,
        labels=np.zeros(len(messages), dtype=np.int_),
        central=central,
        importance=importance(messages, central, sizes) * (0.5 + 0.5 * facts),
        quality=quality,
        titles={},
        df=dict(Counter(stem for words in terms for stem in {s for s, _ in words})),
        vectors=unit,
        book=book,
        langs=langs,
        packs=found,
        hygiene=marks,
    )


def _groups(draft: Draft, seq: Sequence[Turn]) -> tuple[list[Thread], dict[int, str]]:
    """Threads of a chat; a channel's topic clusters; a whole forum's topics (with their
    titles as the groups' phrases)."""
    ctx = draft.ctx
    topics = forum_topics(draft.messages, ctx, draft.book)
    if ctx.kind is SourceKind.CHANNEL or len(topics) >= 2:
        if len(topics) >= 2:
            label_of = {topic: label for label, (topic, _) in enumerate(topics)}
            labels = [label_of[m.topic_id or GENERAL_TOPIC] for m in draft.messages]
        else:
            labels = cluster(draft.vectors).tolist()
        groups: dict[int, list[int]] = {}
        for i, lab in enumerate(labels):
            groups.setdefault(int(lab), []).append(i)
        out = []
        for members in groups.values():
            counts = Counter(seq[i].author for i in members)
            content = tuple(i for i in members if seq[i].act is not Act.CHATTER)
            out.append(Thread(tuple(members), content, tuple(a for a, _ in counts.most_common())))
        out.sort(key=lambda t: (-len(t.content), t.first))
        if len(topics) >= 2:
            title = dict(topics)
            of = {n: draft.messages[t.first].topic_id or GENERAL_TOPIC for n, t in enumerate(out)}
            return out, {n: title[topic] for n, topic in of.items()}
        return out, {}
    return threads(seq, draft.vectors), {}


def _phrases(
    draft: Draft,
    found: Sequence[Thread],
    keep: Callable[[str], bool] | None = None,
    behind: Background | None = None,
) -> dict[int, str]:
    """Each thread's key phrase (by its index in ``found``), read from what its messages
    say about something: chatter and what is said to people (``without_chatter``) never
    name a topic ("See you!" is no meeting), nor a participant's name, nor what the
    source's earlier messages (``behind``) say as often. ``keep``: a further filter on
    phrases."""
    labels = np.full(len(draft.messages), -1, dtype=np.int_)
    for n, thread in enumerate(found):
        labels[list(thread.members)] = n
    spoken = ["" if is_placeholder(t) else without_chatter(t) for t in draft.texts]
    source = draft.ctx.family == "source"

    def kept(phrase: str) -> bool:
        # A source summary names no time; ``keep`` narrows further.
        if source and has_period_wording(phrase):
            return False
        return keep is None or keep(phrase)

    # A participant's name is who talked, never what about.
    names = {m.sender_name for m in draft.messages if m.sender_name}
    found_phrases = key_phrases(
        spoken,
        labels,
        top=1,
        keep=kept,
        packs=draft.packs,
        names=sorted(names),
        least_share=0.0 if source else TOPIC_SHARE,
        behind=behind,
    )
    return {n: p[0] for n, p in found_phrases.items() if n >= 0 and p}


def _behind(draft: Draft, history: Sequence[Message]) -> Background:
    """The content words of the source's earlier messages, read in the window's most
    common language (a thread's title weighs against them)."""
    counts = Counter(p.code for p in draft.packs if p is not None)
    common = find(counts.most_common(1)[0][0]) if counts else None
    return background([m.text for m in history], common)


def _neutral(
    draft: Draft, found: Sequence[Thread], foreign: Sequence[int], behind: Background | None
) -> dict[int, str]:
    """The key phrase of each thread in ``foreign`` (threads in another language than the
    requested one) that a title in the requested language may name as it is written: an
    acronym, or a name in Latin letters in a chat written in another script ("LND",
    "Telegram" in a Russian chat); none where the thread has no such phrase."""
    scripts: dict[str | None, list[int]] = {}
    for n in foreign:
        written = find(_language(draft, found[n]))
        scripts.setdefault(written.script if written is not None else None, []).append(n)
    out: dict[int, str] = {}
    for own, ns in scripts.items():
        got = _phrases(draft, [found[n] for n in ns], partial(neutral_name, script=own), behind)
        out.update({ns[k]: phrase for k, phrase in got.items()})
    return out


def _language(draft: Draft, thread: Thread) -> str | None:
    """The language most of a thread's messages are in."""
    counts = Counter(draft.langs[i] for i in thread.members if draft.langs[i] is not None)
    return counts.most_common(1)[0][0] if counts else None


def _dates(
    messages: Sequence[Message], ctx: SummaryContext
) -> tuple[datetime | None, datetime | None]:
    """The time a summary is about, in the source's zone, for the years its dates show:
    the period (its end exclusive), else the time of its messages."""
    zone = ctx.timezone
    if ctx.started_at is not None and ctx.ended_at is not None:
        end = ctx.ended_at - timedelta(microseconds=1)
        return ctx.started_at.astimezone(zone), end.astimezone(zone)
    if not messages:
        return None, None
    return messages[0].posted_at.astimezone(zone), messages[-1].posted_at.astimezone(zone)


def read_messages(
    messages: Sequence[Message], vectors: Matrix, ctx: SummaryContext
) -> tuple[Draft, list[Turn]]:
    """What the engine knows of non-empty ``messages`` and their turns, each act read from
    its own text (before the act scorers decide): the input of ``scoring.features``."""
    book = pack(ctx.language).dated(*_dates(messages, ctx))
    draft = _draft(messages, vectors, ctx, book)
    return draft, turns(draft)


def summarize_extractive(
    messages: Sequence[Message],
    vectors: Matrix,
    ctx: SummaryContext,
    *,
    source_ref: str,
    link: Callable[[int], str],
    history: Sequence[Message] = (),
) -> Summary:
    """Summarise messages with text (posting order) whose vectors are ``vectors``' rows.

    Args:
        messages: the messages; each has text (or a caption).
        vectors: one normalised embedding per message, same order.
        ctx: family, kind, title, language and period of the request.
        source_ref: the reference to echo in the result.
        link: builds a message's link from its id (links are never taken from text);
            ``""`` where the chat has none.
        history: the source's messages before ``messages`` (``adverts.HISTORY`` at most,
            oldest first), where a text that recurs is found beside the window itself.

    Returns:
        The summary; an empty ``messages`` gives a summary that says there are none.

    Raises:
        UnsupportedLanguage: for a language without a pack (``lang.CODES``).
    """
    book = pack(ctx.language).dated(*_dates(messages, ctx))
    if not messages:
        return _empty(book, ctx, source_ref)
    draft = _draft(messages, vectors, ctx, book, history)
    seq = turns(draft)
    # Decisions, plans and open questions are what the act scorers name, nothing else.
    verdicts = decide(draft, seq)
    draft = replace(draft, acts=verdicts)
    seq = settle(seq, verdicts[SectionKind.DECISIONS])
    found, headings = _groups(draft, seq)
    behind = None if headings else _behind(draft, history)
    phrases = headings or _phrases(draft, found, behind=behind)
    # A key phrase in another language than the requested one is quoted in the digest
    # and never titles a section (a forum topic's title is a name: it stays).
    own = {n: p for n, p in phrases.items() if headings or _language(draft, found[n]) == book.code}
    # Each thread's phrase in the threads' order, "" where a thread has none: a smaller
    # thread's phrase never moves up to stand for a larger one (``opening.topics_of``).
    main = [
        own.get(n, book.quote(phrases[n])) if n in phrases else ""
        for n in range(len(found))
        if len(found[n].content) >= 2
    ]
    # The summary paragraph tells the window's gist, its quotes weighing the window's
    # vocabulary too; the sections' lines quote each message's own point.
    told = Citer(draft, link, vocabulary_share=SUMMARY_VOCABULARY)
    c = Citer(draft, link, cited=told.cited)
    conversations = sum(1 for t in found if len(t.content) >= 2) or 1
    writers = ctx.coverage.writers if ctx.coverage is not None else None
    text = digest(told, seq, main, conversations, writers)
    # A thread in another language is titled by a name it carries that reads the same in
    # any language (an acronym, a brand), else by its time.
    others = [n for n in range(len(found)) if n not in own]
    neutral = {} if headings else _neutral(draft, found, others, behind)
    parts = sections(draft, seq, found, own, c, neutral)
    ranked = sorted(c.cited, key=lambda i: (-draft.importance[i], i))
    summary = Summary(
        source_ref=source_ref,
        summary=text,
        sections=parts,
        important_messenger_message_ids=[str(messages[i].messenger_message_id) for i in ranked],
        engine=ENGINE,
        language=ctx.language,
    )
    return mask_summary(summary, marks_for(ctx.language))


def _empty(book: LanguagePack, ctx: SummaryContext, source_ref: str) -> Summary:
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
    """The offline ``SummaryEngine`` (``MLENS_SUMMARY_ENGINE=extractive``): always available."""

    name = ENGINE

    def available(self, settings: Settings) -> bool:
        """Always: it needs only the bundled embedding model."""
        return True

    def check(self, ctx: SummaryContext) -> None:
        """Raises ``UnsupportedLanguage`` for a language without a pack."""
        pack(ctx.language)

    def reads(
        self, messages: Sequence[Message], ctx: SummaryContext, settings: Settings
    ) -> list[Message]:
        """All of them: it reads 5,000 messages in seconds."""
        return list(messages)

    def identity(self, settings: Settings, embedder: Embedder) -> str:
        """Algorithm version and embedding model."""
        return f"extractive|{EXTRACTIVE_VERSION}|{embedder.model_name}"

    def summarize(self, job: SummaryJob) -> Summary:
        """Summarise the job's messages from their stored (or freshly computed) vectors;
        by their words when too many have none yet (``vectors.window_vectors``)."""
        vectors, unembedded = window_vectors(
            job.store, job.embedder, job.source.id, job.messages, job.settings.embedding.batch_size
        )
        summary = summarize_extractive(
            job.messages,
            vectors,
            job.ctx,
            source_ref=job.source_ref,
            link=job.link,
            history=recent(job.store, job.source.id, job.messages),
        )
        return replace(summary, messages_without_vector=unembedded)
