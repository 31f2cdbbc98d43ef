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

from toolkit.summarize.extractive.acts import Act

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
    """Whether question ``i`` gets no reply and none of the next ``FOLLOWING`` messages
    (within ``ANSWER_HOURS``) is by someone else: not even a "no" answers it."""
    if any(u.reply_to == i and u.author != seq[i].author for u in seq[i + 1 :]):
        return False
    later = seq[i + 1 : i + 1 + FOLLOWING]
    return not any(
        u.author != seq[i].author and u.hours - seq[i].hours <= ANSWER_HOURS for u in later
    )
