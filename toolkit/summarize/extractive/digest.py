"""The ``summary`` field of the extractive engine: a digest of one to four sentences.

It says who asked, proposed, decided, shared or said what, quoting the messages that
``selection`` chose (a question with its answer), in posting order; over a long period
each sentence names its day. When the messages hold several threads, an opening
sentence names their topics (``opening``: a whole forum's topic titles, else key
phrases). A source summary opens with what the source is and its topics, then typical
messages, without any period wording.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import datetime

from toolkit.models import SourceKind
from toolkit.summarize.extractive.acts import Act, act_of, is_placeholder
from toolkit.summarize.extractive.conversations import Turn, in_thread
from toolkit.summarize.extractive.draft import Draft, author
from toolkit.summarize.extractive.opening import opening, who
from toolkit.summarize.extractive.quotes import passage
from toolkit.summarize.extractive.reported import report
from toolkit.summarize.extractive.selection import (
    OPENER_WEIGHT,
    TIME_SPAN_HOURS,
    Unit,
    select,
)
from toolkit.summarize.extractive.templates import Phrasebook
from toolkit.summarize.extractive.tokens import script
from toolkit.summarize.period_wording import has_period_wording
from toolkit.text import tokenize

_YOU = re.compile(r"\b(?:you|your|ya|u|ur)\b", re.IGNORECASE)
DIGEST_QUOTE_CHARS = 160
# About the words a quote of DIGEST_QUOTE_CHARS characters holds.
QUOTE_WORDS = 28
MAX_SENTENCES = 4
_SCRIPT = {"en": "latin", "ru": "cyrillic"}
_VERB = {
    Act.QUESTION: "asked",
    Act.PROPOSAL: "proposed",
    Act.DECISION: "decided",
    Act.SHARE: "shared",
    Act.STATEMENT: "said",
}


def turns(draft: Draft) -> list[Turn]:
    """The messages as ``selection`` sees them (replies resolved to indices)."""
    index = {m.messenger_message_id: i for i, m in enumerate(draft.messages)}
    start = draft.messages[0].posted_at
    out = []
    for i, message in enumerate(draft.messages):
        text = draft.texts[i]
        act = act_of(text)
        if draft.ctx.family == "source" and has_period_wording(text):
            act = Act.CHATTER  # a source summary quotes nothing that names a time
        if is_placeholder(text):
            act = Act.CHATTER  # an attachment's marker says nothing a digest can retell
        words = len(tokenize(text))
        out.append(
            Turn(
                words=words,
                cost=min(words, QUOTE_WORDS),
                stems=frozenset(stem for stem, _ in draft.terms[i]),
                act=act,
                author=author(message),
                reply_to=index.get(message.reply_to) if message.reply_to is not None else None,
                hours=(message.posted_at - start).total_seconds() / 3600,
                thread=message.topic_id,
            )
        )
    return out


def _passage(draft: Draft, i: int) -> str:
    return passage(draft.texts[i], DIGEST_QUOTE_CHARS, draft.weight)


def _quote(book: Phrasebook, draft: Draft, i: int) -> str:
    return book.quote(_passage(draft, i))


def _subject(book: Phrasebook, draft: Draft, i: int) -> str:
    if draft.ctx.kind is SourceKind.CHANNEL:
        return book.channel_subject(draft.ctx.title)
    return author(draft.messages[i])


def addressee(seq: list[Turn], i: int) -> str | None:
    """Whom message ``i`` is for: the author it replies to, else the next other author
    of its thread (a forum topic: someone posting in another topic is not answering)."""
    j = seq[i].reply_to
    if j is not None and seq[j].author != seq[i].author:
        return seq[j].author
    later = itertools.islice(in_thread(seq, i, 1), 5)
    return next((seq[k].author for k in later if seq[k].author != seq[i].author), None)


def retold(book: Phrasebook, draft: Draft, unit: Unit, seq: list[Turn]) -> str | None:
    """The unit in reported speech (English chats): "Ann baked cookies and asks whether
    Bob wants some."; a member that is only chatter is left out; None when a member is
    not English or nothing but chatter is left."""
    if book.code != "en" or draft.ctx.kind is SourceKind.CHANNEL:
        return None
    names = tuple(sorted({t.author for t in seq}))
    parts = []
    for i in unit.members:
        text = _passage(draft, i)
        if script(text) not in (None, "latin"):
            return None
        whom = addressee(seq, i)
        if unit.second is not None and i == unit.first:  # a question is for who answers it
            whom = seq[unit.second].author if seq[unit.second].author != seq[i].author else whom
        if whom is None and len(names) == 2:  # the other of two speakers
            whom = next(n for n in names if n != seq[i].author)
        if whom is None and _YOU.search(text):
            return None  # whom "you" means is unknown: quote the message instead
        said = report(text, seq[i].author, whom, names)
        if said:
            parts.append(said)
    if not parts:
        return None
    # A clause ending in an initial ("… to Vic W.") takes no second full stop.
    return book.sentence("retold", clauses=", and ".join(parts).removesuffix("."))


def unit_sentence(
    book: Phrasebook, draft: Draft, unit: Unit, seq: list[Turn], *, named: bool = False
) -> str:
    """One sentence about one unit: "Ann asked Bob “…”, and Bob answered “…”."."""
    first = unit.first
    chat = draft.ctx.kind is not SourceKind.CHANNEL
    told = retold(book, draft, unit, seq)
    if told is not None:
        return told
    if unit.second is not None and seq[first].act is Act.QUESTION:
        key = "asked_answered_to" if chat else "asked_answered"
        return book.sentence(
            key,
            asker=_subject(book, draft, first),
            question=_quote(book, draft, first),
            answerer=_subject(book, draft, unit.second),
            answer=_quote(book, draft, unit.second),
        )
    parts = []
    for i in unit.members:
        act = seq[i].act
        if act is Act.QUESTION and act_of(_passage(draft, i)) is not Act.QUESTION:
            act = Act.STATEMENT  # the quoted part of the message asks nothing
        verb = _VERB.get(act, "said")
        if not chat and verb == "said":
            verb = "posted"
        whom = addressee(seq, i) if chat and verb in ("asked", "proposed") else None
        values = {"who": _subject(book, draft, i), "quote": _quote(book, draft, i)}
        if whom is not None:
            parts.append(book.sentence(f"{verb}_to", whom=whom, **values))
        elif verb == "posted" and named:
            # The channel is named once; later posts do not repeat its title.
            parts.append(book.sentence("posted_again", quote=values["quote"]))
        else:
            parts.append(book.sentence(verb, **values))
    return " ".join(parts)


def _day(book: Phrasebook, when: datetime, sentence: str) -> str:
    return book.on_day(when, sentence)


def digest(book: Phrasebook, draft: Draft) -> str:
    """The ``summary`` field (see the module docstring)."""
    authors = Counter(author(m) for m in draft.messages)
    sentences: list[str] = []
    head = opening(book, draft, authors)
    if head:
        sentences.append(head)
    seq = turns(draft)
    channel = draft.ctx.kind is SourceKind.CHANNEL
    chosen = select(
        seq,
        draft.vectors.astype("float64"),
        max_units=MAX_SENTENCES - len(sentences),
        opener_weight=0.0 if channel else OPENER_WEIGHT,
    )
    long_period = draft.ctx.family == "period" and seq[-1].hours - seq[0].hours > TIME_SPAN_HOURS
    named = head is not None
    for unit in chosen:
        sentence = unit_sentence(book, draft, unit, seq, named=named)
        named = named or channel
        if long_period:
            sentence = _day(book, draft.messages[unit.first].posted_at, sentence)
        sentences.append(sentence)
    if not chosen and not head:
        sentences.append(
            book.sentence(
                "chat_plain", messages=book.messages(len(draft.messages)), who=who(book, authors)
            )
        )
    quoted = [i for unit in chosen for i in unit.members]
    if any(script(draft.texts[i]) not in (None, _SCRIPT[book.code]) for i in quoted):
        sentences.append(book.say("original_language"))
    return " ".join(sentences)
