"""The threads of a period: which messages belong to one conversation.

A reply joins the thread of the message it answers (the reply graph). Any other
message joins the most similar recent message of its forum topic (within
``GAP_HOURS``, among the last ``WINDOW`` messages; cosine of centred vectors, the
latest message favoured by ``RECENCY``) when that is close enough (``JOIN``), or the
latest one when it follows within ``CONTINUE_HOURS`` (a quick exchange, or its author
going on); else it starts a thread. Chatter
never starts a thread when there is one to join. A channel's posts each stand alone
unless one replies to another; they are grouped by topic elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toolkit.summarize.extractive.choose.acts import Act
from toolkit.summarize.extractive.choose.conversations import Turn

GAP_HOURS = 1.0
CONTINUE_HOURS = 2 / 60
WINDOW = 8
RECENCY = 0.15
JOIN = 0.35


@dataclass(frozen=True)
class Thread:
    """One conversation: its messages (indices, posting order)."""

    members: tuple[int, ...]
    content: tuple[int, ...]
    """Its members that are not chatter."""
    authors: tuple[str, ...]
    """Its authors, the most active first."""

    @property
    def first(self) -> int:
        """Its first message."""
        return self.members[0]

    @property
    def last(self) -> int:
        """Its last message."""
        return self.members[-1]


def _parent(turns: Sequence[Turn], vectors: npt.NDArray[np.float32], i: int) -> int | None:
    turn = turns[i]
    if turn.reply_to is not None:
        return turn.reply_to
    near = [
        k
        for k in range(max(0, i - WINDOW), i)
        if turns[k].thread == turn.thread and turn.hours - turns[k].hours <= GAP_HOURS
    ]
    if not near:
        return None
    latest = near[-1]
    if turn.act is Act.CHATTER:
        return latest
    if turn.hours - turns[latest].hours <= CONTINUE_HOURS:
        return latest  # a turn of a quick exchange, or its author going on
    scores = {k: float(vectors[i] @ vectors[k]) + RECENCY * (k == latest) for k in near}
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] >= JOIN else None


def threads(
    turns: Sequence[Turn], vectors: npt.NDArray[np.float32], *, channel: bool = False
) -> list[Thread]:
    """The threads of ``turns``, the one with most content messages first (then earliest).

    Args:
        turns: the messages in posting order.
        vectors: one centred, normalised vector per message.
        channel: posts stand alone unless they reply to one another.
    """
    label = list(range(len(turns)))
    for i in range(len(turns)):
        parent = turns[i].reply_to if channel else _parent(turns, vectors, i)
        if parent is not None:
            label[i] = label[parent]
    groups: dict[int, list[int]] = {}
    for i, lab in enumerate(label):
        groups.setdefault(lab, []).append(i)
    out = []
    for members in groups.values():
        content = [i for i in members if turns[i].act is not Act.CHATTER]
        counts: dict[str, int] = {}
        for i in members:
            counts[turns[i].author] = counts.get(turns[i].author, 0) + 1
        authors = sorted(
            counts, key=lambda a: (-counts[a], members.index(_first_of(turns, members, a)))
        )
        out.append(Thread(tuple(members), tuple(content), tuple(authors)))
    return sorted(out, key=lambda t: (-len(t.content), t.first))


def _first_of(turns: Sequence[Turn], members: Sequence[int], author: str) -> int:
    return next(i for i in members if turns[i].author == author)
