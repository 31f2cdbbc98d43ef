"""The conversations of a digest's messages: who follows whom, where a conversation
opens, how many there are.

A message's conversation is its thread (``Turn.thread``: its forum topic, ``None``
outside forums) split at pauses of ``SESSION_GAP_HOURS``. "The next message", "the
previous one" and "after a pause" are counted within the thread, so in a forum a
message in another topic never answers, addresses or continues one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toolkit.summarize.extractive.choose.acts import Act

Floats = npt.NDArray[np.float64]

OPENER_DECAY = 0.4
# A question is answered by someone else among its next FOLLOWING messages (ANSWER_HOURS).
FOLLOWING = 3
ANSWER_HOURS = 2.0
# A pause this long (hours) starts a new conversation, whose first messages open it.
SESSION_GAP_HOURS = 0.25


@dataclass(frozen=True)
class Turn:
    """What selection needs of one message."""

    words: int
    stems: frozenset[str]
    act: Act
    author: str
    reply_to: int | None
    hours: float
    cost: int = 0
    """Words the digest spends quoting it (a long message is quoted in part)."""
    thread: int | None = None
    """Its forum topic (``None`` outside forums): the conversation it belongs to."""
    facts: float = 0.0
    """How full of facts it is, in [0, 1] (``facts.fact_score``)."""
    audience: float = 0.0
    """How much its audience answered it beyond replies (reactions, forwards), in [0, 1]."""
    asks_back: bool = False
    """It opens with a question of its own (``acts.asks_back``): no answer to the one before."""
    counter: bool = False
    """It asks back without a question mark (``acts.asks_unmarked``: "what coin ser"): no
    answer to the question before it."""
    replying: bool = False
    """Its chat answers by replies (a tenth of its messages or more reply): a message that
    is no reply answers a question only on its terms (``selection.partner``)."""
    repeated: bool = False
    """Its text recurs in the source (``adverts.hygiene``): never a decision, plan or question."""
    advert: bool = False
    """It is an advert (``adverts.hygiene``): never a decision, plan or question."""
    echo: bool = False
    """An earlier message of the window has its text: the digest shows that one only."""
    answers_outside: bool = False
    """It replies to a message outside the digest's messages (``reply_to`` is then
    ``None``): it answers that one, never the question or statement beside it."""
    leans: bool = False
    """It opens on a word that points back ("It…", "And…", «Это…», ``Cues.leans_back``): a
    digest tells it beside the message it answers, or not at all."""

    @property
    def never_act(self) -> bool:
        """Whether it may never be named a decision, a plan or a question (a recurring
        text, an advert or a copy)."""
        return self.repeated or self.advert or self.echo

    @property
    def spent(self) -> int:
        """``cost`` when set, else ``words``."""
        return self.cost or self.words


def opener(turns: Sequence[Turn], content: npt.NDArray[np.bool_]) -> Floats:
    """``OPENER_DECAY`` to the power of a message's rank among its conversation's content
    (a conversation: a thread's messages without a pause of ``SESSION_GAP_HOURS``)."""
    out = np.zeros(len(turns))
    rank: dict[int | None, int] = {}
    last: dict[int | None, float] = {}
    for i, turn in enumerate(turns):
        if turn.thread not in last or turn.hours - last[turn.thread] > SESSION_GAP_HOURS:
            rank[turn.thread] = 0
        last[turn.thread] = turn.hours
        out[i] = OPENER_DECAY ** rank[turn.thread]
        rank[turn.thread] += int(content[i])
    return out


def in_thread(turns: Sequence[Turn], i: int, step: int) -> Iterator[int]:
    """The messages of ``i``'s thread after it (``step=1``) or before it (``-1``), nearest
    first."""
    stop = len(turns) if step > 0 else -1
    return (j for j in range(i + step, stop, step) if turns[j].thread == turns[i].thread)


def sessions(turns: Sequence[Turn]) -> int:
    """How many conversations the messages hold: per thread, a pause of
    ``SESSION_GAP_HOURS`` splits."""
    threads: dict[int | None, list[Turn]] = {}
    for turn in turns:
        threads.setdefault(turn.thread, []).append(turn)
    return sum(
        1 + sum(1 for a, b in itertools.pairwise(seq) if b.hours - a.hours > SESSION_GAP_HOURS)
        for seq in threads.values()
    )


def unanswered(seq: Sequence[Turn], i: int) -> bool:
    """Whether question ``i`` stays unanswered: no reply to it (or to a reply to it) by
    someone else; none of its thread's next ``FOLLOWING`` messages within
    ``ANSWER_HOURS`` by someone else that asks nothing back (even a "no" answers it); and
    no later message of its thread by someone else, however late, that states something
    on its terms (shares a content word with it, asks nothing back): when unsure, a
    question is not called open."""
    asker = seq[i].author
    chain = {i}
    for k in range(i + 1, len(seq)):
        if seq[k].reply_to in chain:
            if seq[k].author != asker:
                return False
            chain.add(k)
    for k in itertools.islice(in_thread(seq, i, 1), FOLLOWING):
        u = seq[k]  # a question of its own ("who is coming tonight?") answers nothing
        if u.author != asker and not u.asks_back and u.hours - seq[i].hours <= ANSWER_HOURS:
            return False
    later = (seq[k] for k in in_thread(seq, i, 1))
    return not any(u.author != asker and not u.asks_back and u.stems & seq[i].stems for u in later)
