"""Which messages a digest tells: informative, covering the period, questions with answers.

1. **Informativeness.** Each message scores its centrality (cosine to the mean of the
   content messages, rescaled to [0, 1]), the share of its content words that other
   messages use too (the thread's vocabulary) and how early it comes in its
   conversation (the first content messages after a pause state the point: a weight
   that decays by ``OPENER_DECAY`` per message) and its place in a thread (replies it
   gets, being a reply: ``THREAD_WEIGHT``), times a length prior that favours
   messages of about ``IDEAL_WORDS`` words. Chatter scores nothing.
2. **Units.** A question travels with its answer (the reply to it, else the next
   content message by someone else) and an answer with its question; a reply with what
   it replies to; a message that opens pointing back ("He…", "And…": ``Turn.leans``) and
   cannot be told with what it points to is no unit, nor a pair whose first message leans
   on a third, nor, where people answer by replies, a short remark told alone
   (``short_remark``). In a forum a
   conversation is one topic (``Turn.thread``): "next", "previous" and "after a pause"
   are counted within the message's own topic, never across topics.
3. **Maximal marginal relevance** over meaning and time: a unit's gain is its score
   minus its greatest similarity to a unit already chosen, where similarity is the
   cosine of the vectors or, over a long period, closeness in time; so a week shows
   several days' threads, not only the last day's. When the messages span several
   forum topics, two units of one topic count as alike (``SAME_TOPIC_SIMILARITY``), so a
   digest of the whole forum tells several topics before a second item of one, and a
   unit's score leans towards the busier topics (``TOPIC_SIZE_WEIGHT``), the ones the
   digest's opening names first.
4. **Length prior.** Units are taken while they fit a word budget that grows slowly
   with the number of content messages and with the number of conversations (pauses
   of ``SESSION_GAP_HOURS``), at most ``MAX_UNITS`` of them; the statement a reply
   answers costs half its words (``unit_cost``), so that telling every reply with its
   parent does not crowd out a second thread.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import (
    Floats,
    Turn,
    in_thread,
    opener,
    sessions,
)

IDEAL_WORDS = 18
MAX_UNITS = 4
POOL = 60
MMR_LAMBDA = 0.5
BASE_BUDGET = 20
BUDGET_PER_SQRT = 4.0
OPENER_WEIGHT = 2.0
THREAD_WEIGHT = 1.0
# The weight of the facts a message carries (numbers, names, places, links, times).
FACT_WEIGHT = 1.0
# Facts count from SHORT_EXCHANGE content messages on, fully from FACT_MESSAGES.
SHORT_EXCHANGE = 20
FACT_MESSAGES = 60
BUDGET_PER_SESSION = 15.0
MAX_BUDGET = 90
# Periods longer than this many hours get the time term in the redundancy.
TIME_SPAN_HOURS = 36.0
# The least similarity of two units of the same forum topic, among several topics.
SAME_TOPIC_SIMILARITY = 1.0
# Among several forum topics, a unit of the busiest topic keeps its whole score and one
# of a topic with few messages loses up to this share of it.
TOPIC_SIZE_WEIGHT = 0.5


@dataclass(frozen=True)
class Unit:
    """One item of a digest: a message, or a question with its answer."""

    first: int
    second: int | None
    score: float

    @property
    def members(self) -> tuple[int, ...]:
        """The message indices of the unit, in posting order."""
        return (self.first,) if self.second is None else (self.first, self.second)


def length_prior(words: int) -> float:
    """Near 1 for a message of ``IDEAL_WORDS`` words; short and very long ones score less."""
    if words <= 0:
        return 0.0
    short = min(1.0, words / IDEAL_WORDS) ** 0.7
    long = min(1.0, (3 * IDEAL_WORDS / words)) ** 0.5
    return float(short * long)


def informativeness(
    turns: Sequence[Turn], vectors: Floats, *, opener_weight: float = OPENER_WEIGHT
) -> Floats:
    """Each message's score in [0, 1] (see the module docstring); chatter is 0."""
    n = len(turns)
    content = np.array([t.act is not Act.CHATTER and t.stems for t in turns], dtype=bool)
    if not content.any():
        return np.zeros(n)
    centre = vectors[content].mean(axis=0)
    norm = float(np.linalg.norm(centre))
    cos = vectors @ (centre / norm) if norm > 0 else np.zeros(n)
    low, high = float(cos[content].min()), float(cos[content].max())
    central = (cos - low) / (high - low) if high - low > 1e-9 else np.ones(n)
    df: dict[str, int] = {}
    for t in turns:
        for s in t.stems:
            df[s] = df.get(s, 0) + 1
    shared = np.array(
        [sum(df[s] > 1 for s in t.stems) / math.sqrt(len(t.stems)) if t.stems else 0 for t in turns]
    )
    shared = shared / shared.max() if shared.max() > 0 else shared
    prior = np.array([length_prior(t.words) for t in turns])
    replies = np.zeros(n)
    for t in turns:
        if t.reply_to is not None:
            replies[t.reply_to] += 1
    threaded = np.array(
        [
            min(1.0, (replies[i] + (t.reply_to is not None) + 2 * t.audience) / 2)
            for i, t in enumerate(turns)
        ]
    )
    # In a short exchange every message is the point; in a long chat, the facts.
    ramp = (int(content.sum()) - SHORT_EXCHANGE) / (FACT_MESSAGES - SHORT_EXCHANGE)
    facts = np.array([t.facts for t in turns]) * min(1.0, max(0.0, ramp))
    score = (
        0.6 * central
        + 0.4 * shared
        + opener_weight * opener(turns, content)
        + THREAD_WEIGHT * threaded
        + FACT_WEIGHT * facts
    ) * prior
    return np.where(content, np.clip(score, 0.0, None), 0.0)


_NO_ANSWER = (Act.CHATTER, Act.QUESTION)
"""Acts that do not answer a question ("ok", or a question back)."""


MIN_QUESTION_WORDS = 2
"""Content words a question needs to be told without its answer."""
LEANS_ON_PARENT = 5
"""A reply with fewer content words than this is told with the message it answers (readers
of real chats found such replies quoted alone meaningless or misleading)."""
ADJACENT_HOURS = 0.25
"""How soon after the message before it a message that leans on it (and replies to
nothing, in a chat that answers without replies) must come to be read as going on from it."""


def partner(turns: Sequence[Turn], i: int, *, any_reply: bool = False) -> int | None:
    """The answer to question ``i``, the question that message ``i`` answers, or the
    message a reply ``i`` answers when it is short or points back (every reply's, with
    ``any_reply``, as the summary's units and a section's lines ask: readers of real
    chats found long replies told alone as misleading as short ones), or, where nobody
    replies, the one a message that points back goes on from."""
    if turns[i].act is Act.QUESTION:
        replies = [j for j in range(i + 1, len(turns)) if turns[j].reply_to == i]
        later = [
            j
            for j in itertools.islice(in_thread(turns, i, 1), 3)
            if turns[j].author != turns[i].author
            and (
                turns[j].reply_to == i
                or (
                    turns[j].reply_to is None
                    and not turns[j].answers_outside
                    # where people answer by replies, a message next to a question
                    # answers it only on its terms
                    and (not turns[j].replying or turns[j].stems & turns[i].stems)
                )
            )
        ]
        answers = (
            k
            for k in replies + later[:1]
            if turns[k].act not in _NO_ANSWER and not turns[k].counter
        )
        return next(answers, None)
    if turns[i].counter:
        return None  # "what coin ser" asks back: it answers nothing
    asked = turns[i].reply_to
    previous = next(in_thread(turns, i, -1), None)
    if (
        asked is None
        and not turns[i].answers_outside
        and previous is not None
        and turns[previous].author != turns[i].author
        and (not turns[i].replying or turns[i].stems & turns[previous].stems)
    ):
        asked = previous
    if asked is not None and turns[asked].act is Act.QUESTION:
        return asked
    # A reply to a statement means what it means beside the message it replies to («Так
    # сухо», "He was on one", "if the settings are messed up, burn a new SD card"): the
    # two are told together (readers of real chats found replies told alone meaningless
    # or misleading, short ones most). Where the chat answers by
    # replies, which statement a leaning message that is no reply answers is a guess
    # (the one just before it is often another exchange's): it has none, and ``units``
    # never tells it alone; where nobody replies, it answers the message just before it
    # (or goes on from its author's own), if that came within ``ADJACENT_HOURS``.
    parent = turns[i].reply_to
    if (
        parent is None
        and turns[i].leans
        and not turns[i].replying
        and not turns[i].answers_outside
        and i > 0
    ):
        before = turns[i - 1]
        if (
            before.thread == turns[i].thread
            and turns[i].hours - before.hours <= ADJACENT_HOURS
            and before.act is not Act.CHATTER
        ):
            return i - 1
    if (
        parent is not None
        and (any_reply or needs_parent(turns[i]))
        and turns[parent].author != turns[i].author
        and turns[parent].act is not Act.CHATTER
    ):
        return parent
    return None


def needs_parent(turn: Turn) -> bool:
    """Whether a message is a reply that means what it means only beside what it replies
    to: short (``LEANS_ON_PARENT``) or opening on a word that points back."""
    return turn.reply_to is not None and (len(turn.stems) < LEANS_ON_PARENT or turn.leans)


def short_remark(turn: Turn) -> bool:
    """Whether a statement in a chat that answers by replies is too short to be told
    alone (fewer than ``LEANS_ON_PARENT`` content words: "784 on the waitlist", "Just
    1.53 bean", «За 16 лет впервые»): what it answers or goes on from is a message it
    names no link to, and which one is a guess. (Where nobody replies, as in a dialogue,
    the message just before is what it answers, and such remarks carry the point.)"""
    return turn.replying and turn.act is not Act.QUESTION and len(turn.stems) < LEANS_ON_PARENT


def hangs(turn: Turn, told: Collection[int] = ()) -> bool:
    """Whether a message replies to a message of the digest's that is not ``told``:
    told alone or as the first of a pair, it answers what a reader never sees (readers
    of real chats found "This only has an 8 billion market cap!!!" under its author's
    chart, which ``partner`` cannot tell beside it)."""
    return turn.reply_to is not None and turn.reply_to not in told


def leans_elsewhere(turn: Turn, told: Collection[int]) -> bool:
    """Whether a message that begins a pair ("404 Not Found", then the link that answers
    it; a question, then its answer) itself leans on a message not ``told``: it is a
    reply that means what it means only beside its own (``needs_parent``: "What's the
    price for that rn?"), or a short remark that replies to nothing ("Just 1.53 bean",
    ``short_remark``), which leans on a message nobody can name. (A long reply begins a
    pair: a chain's middle, "on reboot it asks every minute for unlock", then the fix.)"""
    return (needs_parent(turn) and turn.reply_to not in told) or (
        turn.reply_to is None and short_remark(turn)
    )


def units(turns: Sequence[Turn], score: Floats) -> list[Unit]:
    """Every candidate unit: each content message, joined with its question or answer."""
    out: dict[tuple[int, ...], Unit] = {}
    for i, s in enumerate(score):
        if s <= 0:
            continue
        j = partner(turns, i, any_reply=True)
        if j is None:
            if turns[i].act is Act.QUESTION and len(turns[i].stems) < MIN_QUESTION_WORDS:
                continue  # "Who can help?" alone tells a reader nothing of what was asked
            if turns[i].leans and turns[i].act is not Act.QUESTION:
                continue  # "He was on one for sure" alone: who, on what?
            if short_remark(turns[i]):
                continue  # "784 on the waitlist": of what? (in a chat that replies)
            if hangs(turns[i]):
                continue  # "only has an 8 billion market cap!!!", of a chart nobody sees
            out[(i,)] = Unit(i, None, float(s))
            continue
        if turns[i].leans and turns[i].reply_to is None and turns[j].author == turns[i].author:
            # it goes on from its author's message just before: one message in two, and
            # the digest may tell the second half alone, as it would a long message's
            out[(i,)] = Unit(i, None, float(s))
        if leans_elsewhere(turns[min(i, j)], (max(i, j),)):
            continue  # "Just 1.53 bean" answered: what it answers is a third message
        first, second = min(i, j), max(i, j)
        # A pair is worth its better half plus a little of the other.
        value = max(score[i], score[j]) + 0.25 * min(score[i], score[j])
        key = (first, second)
        if key not in out or out[key].score < value:
            out[key] = Unit(first, second, float(value))
    return list(out.values())


def by_topic_size(turns: Sequence[Turn], found: Sequence[Unit]) -> list[Unit]:
    """The units with their scores leaning towards the busier forum topics: times
    ``1 - TOPIC_SIZE_WEIGHT * (1 - size / largest)``, a topic's size its content messages.
    Unchanged when the messages are not of several topics."""
    sizes = Counter(t.thread for t in turns if t.act is not Act.CHATTER)
    if len({t.thread for t in turns}) < 2 or not sizes:
        return list(found)
    largest = max(sizes.values())
    return [
        Unit(
            u.first,
            u.second,
            u.score * (1 - TOPIC_SIZE_WEIGHT * (1 - sizes[turns[u.first].thread] / largest)),
        )
        for u in found
    ]


def unit_cost(turns: Sequence[Turn], unit: Unit) -> int:
    """The words a unit spends of the budget: its messages', the statement a reply
    answers at half (it is told so that the reply means what it says, not for itself)."""
    if unit.second is None:
        return turns[unit.first].spent
    first, second = turns[unit.first], turns[unit.second]
    if second.reply_to == unit.first and first.act is not Act.QUESTION:
        return second.spent + first.spent // 2
    return first.spent + second.spent


def word_budget(turns: Sequence[Turn]) -> int:
    """How many quoted words a digest may spend.

    It grows with the square root of the content messages and by ``BUDGET_PER_SESSION``
    for each conversation after the first, up to ``MAX_BUDGET``.
    """
    content = sum(1 for t in turns if t.act is not Act.CHATTER)
    extra = BUDGET_PER_SESSION * (sessions(turns) - 1)
    return int(min(MAX_BUDGET, BASE_BUDGET + BUDGET_PER_SQRT * math.sqrt(content) + extra))


def select(
    turns: Sequence[Turn],
    vectors: Floats,
    *,
    max_units: int = MAX_UNITS,
    opener_weight: float = OPENER_WEIGHT,
) -> list[Unit]:
    """The units a digest tells, in posting order (see the module docstring).

    Args:
        turns: the messages, in posting order.
        vectors: one normalised vector per message.
        max_units: the most units (sentences about messages) to choose.
        opener_weight: the weight of a conversation's first messages (0 for a channel,
            whose posts each stand alone).
    """
    score = informativeness(turns, vectors, opener_weight=opener_weight)
    # Only the best units can win: MMR over the top ``POOL`` keeps 1,000 messages fast.
    candidates = sorted(by_topic_size(turns, units(turns, score)), key=lambda u: -u.score)[:POOL]
    if not candidates:
        return []
    budget = word_budget(turns)
    span = turns[-1].hours - turns[0].hours
    scale = max(span / (max_units + 1), 1e-9)
    top = max(u.score for u in candidates)
    topics = len({t.thread for t in turns}) > 1
    chosen: list[Unit] = []
    used = 0
    while len(chosen) < max_units:
        best: tuple[float, Unit] | None = None
        for unit in candidates:
            if unit in chosen or any(set(unit.members) & set(c.members) for c in chosen):
                continue
            cost = unit_cost(turns, unit)
            if chosen and used + cost > budget:
                continue
            redundancy = 0.0
            for c in chosen:
                for a in unit.members:
                    for b in c.members:
                        sim = float(vectors[a] @ vectors[b])
                        if span > TIME_SPAN_HOURS:
                            near = math.exp(-abs(turns[a].hours - turns[b].hours) / scale)
                            sim = max(sim, near)
                        if topics and turns[a].thread == turns[b].thread:
                            sim = max(sim, SAME_TOPIC_SIMILARITY)
                        redundancy = max(redundancy, sim)
            gain = MMR_LAMBDA * unit.score / top - (1 - MMR_LAMBDA) * redundancy
            if best is None or gain > best[0]:
                best = (gain, unit)
        if best is None:
            break
        chosen.append(best[1])
        used += unit_cost(turns, best[1])
    return sorted(chosen, key=lambda u: u.first)
