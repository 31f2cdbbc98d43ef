"""The ``summary`` field of the extractive engine: a digest of two to four sentences.

An opening names what the period was about (``opening``: its main threads' topics, or
a whole forum's topic titles; for a source, what the source is). Then the exchanges
that ``selection`` chose (a question with its answer, a proposal, a decision), in
posting order: retold in reported speech where the message is in the requested
language and its pack has reported speech (English), else quoted — short, when the
message is in another language, the sentence around it saying who asked, answered or
proposed what, in the requested language. Over a long period each sentence names its
day. A question nobody answered closes the digest when there is room. Every sentence
carries the links of the messages it rests on (``cite``).
"""

from __future__ import annotations

import itertools
from collections import Counter

from toolkit.models import SourceKind
from toolkit.summarize.extractive.choose.acts import (
    Act,
    act_of,
    agrees,
    question_sentence,
)
from toolkit.summarize.extractive.choose.conversations import Turn, in_thread
from toolkit.summarize.extractive.choose.selection import (
    OPENER_WEIGHT,
    TIME_SPAN_HOURS,
    Unit,
    select,
)
from toolkit.summarize.extractive.compose.cite import Citer
from toolkit.summarize.extractive.compose.opening import opening
from toolkit.summarize.extractive.compose.sections import open_questions
from toolkit.summarize.extractive.draft.draft import Draft, author
from toolkit.summarize.extractive.draft.quotes import ELLIPSIS
from toolkit.summarize.period_wording import split_sentences

DIGEST_QUOTE_CHARS = 120
MAX_SENTENCES = 4
_VERB = {
    Act.QUESTION: "asked",
    Act.PROPOSAL: "proposed",
    Act.DECISION: "decided",
    Act.SHARE: "shared",
    Act.STATEMENT: "said",
}


def addressee(seq: list[Turn], i: int) -> str | None:
    """Whom message ``i`` is for: the author it replies to, else, where the chat does not
    answer by replies, the next other author of its thread (a forum topic: someone
    posting in another topic is not answering). Where it does, who speaks next may
    answer someone else: readers of real chats found "asks Bull Jesus" of a question put
    to the whole group."""
    j = seq[i].reply_to
    if j is not None and seq[j].author != seq[i].author:
        return seq[j].author
    if seq[i].replying:
        return None
    later = itertools.islice(in_thread(seq, i, 1), 5)
    return next((seq[k].author for k in later if seq[k].author != seq[i].author), None)


def asked_of(seq: list[Turn], unit: Unit) -> bool:
    """Whether a question (``unit.first``) was put to who answers it (``unit.second``):
    where the chat answers by replies, only when the answer replies to it or it replies
    to the answerer's message; elsewhere (a dialogue) the next speaker is the one asked."""
    if unit.second is None:
        return False
    question, answer = seq[unit.first], seq[unit.second]
    if not question.replying or answer.reply_to == unit.first:
        return True
    return question.reply_to is not None and seq[question.reply_to].author == answer.author


def retold(c: Citer, unit: Unit, seq: list[Turn]) -> str | None:
    """The unit in reported speech ("Ann baked cookies and asks whether Bob wants
    some."); a member that is only chatter is left out; None when the requested
    language has no reported speech, a member is in another language or cannot be
    retold without changing its meaning, or nothing but chatter is left."""
    draft, book = c.draft, c.draft.book
    if book.retell is None or draft.ctx.kind is SourceKind.CHANNEL:
        return None
    names = tuple(sorted({book.name(t.author) for t in seq}))
    parts = []
    for i in unit.members:
        if draft.packs[i] is not book or draft.messages[i].forwarded_from:
            return None  # a forward is quoted as forwarded, never retold as its sender's
        text = c.text(i, DIGEST_QUOTE_CHARS)
        whom = addressee(seq, i)
        if unit.second is not None and i == unit.first and asked_of(seq, unit):
            # a question is for who answers it
            whom = seq[unit.second].author if seq[unit.second].author != seq[i].author else whom
        if whom is None and len(names) == 2:  # the other of two speakers
            whom = next(n for n in {t.author for t in seq} if n != seq[i].author)
        if whom is None and book.cue.you.search(text):
            return None  # whom "you" means is unknown: quote the message instead
        said = book.retell(text, book.name(seq[i].author), book.name(whom) if whom else None, names)
        if said is None:
            return None  # reported speech would change its meaning: quote the unit
        if said:
            parts.append(said)
    if not parts:
        return None
    # A clause ending in an initial ("… to Vic W.") takes no second full stop.
    return book.sentence("retold", clauses=book.say("clause_joint").join(parts).removesuffix("."))


def unit_sentence(c: Citer, unit: Unit, seq: list[Turn], *, named: bool = False) -> str:
    """One sentence about one unit: "Ann asks Bob “…”, and Bob answers “…”."."""
    draft, book = c.draft, c.draft.book
    first = unit.first
    chat = draft.ctx.kind is not SourceKind.CHANNEL
    told = retold(c, unit, seq)
    if told is not None:
        return told
    if unit.second is not None and seq[first].act is Act.QUESTION:
        key = "asked_answered_to" if chat and asked_of(seq, unit) else "asked_answered"
        # What the asker says before the question is told beside it ("says … and asks …"):
        # "Could you help me?" alone loses what the help is for.
        said = c.said_before(first, DIGEST_QUOTE_CHARS)
        extra = {} if said is None else {"said": said}
        return book.sentence(
            key if said is None else f"said_{key}",
            asker=c.name(first),
            question=c.question(first, DIGEST_QUOTE_CHARS, alone=said is not None),
            answerer=c.name(unit.second),
            answer=c.quote(unit.second, DIGEST_QUOTE_CHARS),
            **extra,
        )
    parts = []
    for i in unit.members:
        act = seq[i].act
        shown = c.text(i)
        cut = shown.endswith(ELLIPSIS)  # a cut question still asks, though its mark is gone
        if act is Act.QUESTION and not cut and act_of(shown, draft.packs[i]) is not Act.QUESTION:
            act = Act.STATEMENT  # the quoted part of the message asks nothing
        if act is Act.QUESTION and not _asks(draft, i, shown):
            act = Act.STATEMENT  # no sentence of it asks: "asks" would quote a statement
        verb = _VERB.get(act, "said")
        if not chat and verb == "said":
            verb = "posted"
        whom = addressee(seq, i) if chat and verb in ("asked", "proposed") else None
        said = c.said_before(i, DIGEST_QUOTE_CHARS) if act is Act.QUESTION else None
        if said is not None:
            verb = "said_asked"  # what it says before its question is told beside it
        quote = (
            _decided(c, i, DIGEST_QUOTE_CHARS)
            if act is Act.DECISION
            # "asks" quotes the question itself
            else c.question(i, DIGEST_QUOTE_CHARS, alone=said is not None)
            if act is Act.QUESTION
            else c.quote(i, DIGEST_QUOTE_CHARS)
        )
        values = {"who": c.name(i), "quote": quote, **({} if said is None else {"said": said})}
        if whom is not None:
            parts.append(book.sentence(f"{verb}_to", whom=book.name(whom), **values))
        elif verb == "posted" and named:
            # The channel is named once; later posts do not repeat its title.
            parts.append(book.sentence("posted_again", quote=values["quote"]))
        else:
            parts.append(book.sentence(verb, **values))
    return " ".join(parts)


def _asks(draft: Draft, i: int, shown: str) -> bool:
    """Whether message ``i`` asks something "X asks" can quote: a question sentence of it
    (``acts.question_sentence``), or the passage shown is one question ("Are you coming?
    Because …" quoted as its question)."""
    if question_sentence(draft.texts[i], draft.packs[i]) is not None:
        return True
    return shown.endswith("?") and len(split_sentences(shown)) == 1


def _decision(c: Citer, seq: list[Turn]) -> tuple[str, tuple[int, ...]] | None:
    """The most important decision, with the reply that accepts it when there is one."""
    draft = c.draft
    decided = [i for i, t in enumerate(seq) if t.act is Act.DECISION]
    if not decided:
        return None
    i = max(decided, key=lambda k: (draft.importance[k], -k))
    replies = [
        j
        for j in range(i + 1, min(len(seq), i + 4))
        if seq[j].author != seq[i].author
        and (seq[j].reply_to in (None, i))
        and agrees(draft.texts[j], draft.packs[j])
    ]
    book = draft.book
    if replies:
        j = replies[0]
        text = book.sentence(
            "agreed_decision", who=c.name(i), quote=_decided(c, i, 120), agreer=c.name(j)
        )
        return text, (i, j)
    return book.sentence("decided", who=c.name(i), quote=_decided(c, i, 120)), (i,)


def _decided(c: Citer, i: int, limit: int) -> str:
    """The sentence of message ``i`` that reports its decision, quoted ("I'm at the
    hostel. Our room is booked…" reports the booking, not the arrival)."""
    pack = c.draft.packs[i]
    return c.carrying(i, lambda s: act_of(s, pack) is Act.DECISION, limit)


def _open_question(c: Citer, seq: list[Turn], taken: set[int]) -> str | None:
    draft = c.draft
    asked = [i for i in open_questions(draft, seq) if i not in taken]
    if not asked:
        return None
    i = max(asked, key=lambda k: (draft.importance[k], -k))
    text = draft.book.sentence("open_question", who=c.name(i), quote=c.question(i, 100, alone=True))
    return _cited(c, text, (i,))


def _cited(c: Citer, sentence: str, members: tuple[int, ...]) -> str:
    """The sentence with its messages' links before its full stop."""
    links = c.cite(*members)
    if not links:
        return sentence
    end = sentence[-1] if sentence[-1:] in ".!?…" else ""
    return f"{sentence[: len(sentence) - len(end)]}{links}{end or '.'}"


def digest(
    c: Citer,
    seq: list[Turn],
    phrases: list[str],
    conversations: int,
    participants: int | None = None,
) -> str:
    """The ``summary`` field (see the module docstring).

    Args:
        c: quotes, names and links of the messages; records what the text cites.
        seq: the messages as turns.
        phrases: the main threads' key phrases, main thread first ("" for a thread
            without one).
        conversations: how many threads the period holds.
        participants: the source's participant count (source summaries).
    """
    draft, book = c.draft, c.draft.book
    authors = Counter(author(m) for m in draft.messages)
    sentences: list[str] = []
    head = opening(draft, authors, phrases, conversations, participants)
    if head:
        sentences.append(head)
    channel = draft.ctx.kind is SourceKind.CHANNEL
    # Among several threads, the outcome (a decision) is worth a sentence of its own.
    outcome = _decision(c, seq) if not channel and conversations > 1 else None
    chosen = select(
        seq,
        draft.vectors.astype("float64"),
        max_units=MAX_SENTENCES - len(sentences) - (outcome is not None),
        opener_weight=0.0 if channel else OPENER_WEIGHT,
    )
    long_period = draft.ctx.family == "period" and seq[-1].hours - seq[0].hours > TIME_SPAN_HOURS
    named = head is not None
    told = False
    sentences_said: set[str] = set()
    for unit in chosen:
        members = unit.members
        if outcome is not None and outcome[1][0] in members and unit.second is None:
            # The decision chosen on its own: told with who agreed to it.
            sentence, members, told = outcome[0], outcome[1], True
        else:
            sentence = unit_sentence(c, unit, seq, named=named)
        named = named or channel
        if long_period:
            sentence = book.on_day(draft.messages[unit.first].posted_at, sentence)
        if sentence in sentences_said:
            continue  # no sentence twice in one digest
        sentences_said.add(sentence)
        sentences.append(_cited(c, sentence, members))
    taken = {i for unit in chosen for i in unit.members}
    if outcome is not None and told:
        taken.update(outcome[1])
    if outcome is not None and not told and outcome[1][0] not in taken:
        if set(outcome[1]) & taken:  # its agreement is told already: the decision alone
            decided = outcome[1][0]
            quote = _decided(c, decided, 120)
            outcome = (
                c.draft.book.sentence("decided", who=c.name(decided), quote=quote),
                (decided,),
            )
        sentences.append(_cited(c, outcome[0], outcome[1]))
        taken.update(outcome[1])
    if not channel and conversations > 1 and len(sentences) < MAX_SENTENCES:
        closing = _open_question(c, seq, taken)
        if closing:
            sentences.append(closing)
    if not chosen and not head:
        sentences.append(
            book.sentence(
                "chat_plain",
                messages=book.counted(len(draft.messages), "message"),
                participants=book.counted(len(authors), "participant"),
            )
        )
    if any(draft.foreign(i) for i in taken):
        sentences.append(book.say("original_language"))
    return " ".join(sentences)
