"""Which messages a source summary reads: a sample spread over the source's whole life.

A source summary cannot read every message of a big source, and the newest ones alone
describe its last weeks, not the source. So the time from its first message to its
last is cut into equal buckets, one for every ``RUN`` messages the sample may hold (and
at least ``MIN_BUCKETS`` of them, with shorter runs, for a small sample);
each bucket gets an equal share of the sample (a quiet bucket gives all it has, and
what it leaves goes to the busier ones, equally); a bucket's share is a run of
consecutive messages, so that a question stays with its answer, and of the runs that
fit, the one that says the most: a message weighs its characters up to ``WEIGHT_CAP``,
so one-word chatter ("ok", "lol") weighs little and a long post no more than a full one.

One rule, two users: the pipeline samples a source's outline read from the store
(``MessageStore.message_outline``), and the LLM engine samples the messages it was given
down to what fits one request (``spread_messages``). Deterministic: the same messages
give the same sample.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.models import Message

RUN = 10
"""Consecutive messages a bucket gives at most, when the sample is large enough."""
MIN_BUCKETS = 20
"""Points in time a sample of 20 messages or more is drawn from, at least."""
WEIGHT_CAP = 200
"""Characters past which a message weighs no more."""


def _shares(sizes: Sequence[int], n: int) -> list[int]:
    """How many of ``n`` each bucket gives: equal shares, a bucket giving at most its
    size (``sum(sizes) > n``); what is left after equal levels goes one by one to
    buckets spread evenly among those that still have messages."""
    lo, hi = 0, max(sizes)
    while lo < hi:  # the highest level whose total fits in n
        mid = (lo + hi + 1) // 2
        if sum(min(s, mid) for s in sizes) <= n:
            lo = mid
        else:
            hi = mid - 1
    shares = [min(s, lo) for s in sizes]
    left = n - sum(shares)
    open_ = [b for b, s in enumerate(sizes) if s > lo]
    for k in range(left):  # left < len(open_): the next level did not fit
        shares[open_[(2 * k + 1) * len(open_) // (2 * left)]] += 1
    return shares


def _best_run(weights: Sequence[int], size: int) -> int:
    """Where the run of ``size`` consecutive weights with the greatest sum starts (the
    earliest of equals)."""
    total = best = sum(weights[:size])
    start = 0
    for i in range(size, len(weights)):
        total += weights[i] - weights[i - size]
        if total > best:
            best, start = total, i - size + 1
    return start


def spread(points: Sequence[tuple[int, int]], n: int, *, run: int = RUN) -> list[int]:
    """The sample: indices of ``n`` of ``points``, spread over their time.

    Args:
        points: ``(posted_at in Unix seconds, characters of text)`` of each message, in
            posting order.
        n: how many to pick (all of them when there are no more).
        run: consecutive messages per bucket at most (fewer when ``n`` would leave fewer
            than ``MIN_BUCKETS`` buckets).

    Returns:
        The picked indices, ascending.
    """
    if n >= len(points):
        return list(range(len(points)))
    if n <= 0:
        return []
    first, last = points[0][0], points[-1][0]
    run = max(1, min(run, n // MIN_BUCKETS))
    count = -(-n // run)
    width = last - first + 1
    buckets: list[list[int]] = [[] for _ in range(count)]
    for i, (at, _) in enumerate(points):
        buckets[(at - first) * count // width].append(i)
    filled = [b for b in buckets if b]
    picked: list[int] = []
    for members, share in zip(filled, _shares([len(b) for b in filled], n), strict=True):
        if share:
            weights = [min(points[i][1], WEIGHT_CAP) for i in members]
            start = _best_run(weights, share)
            picked.extend(members[start : start + share])
    return picked


def spread_messages(messages: Sequence[Message], n: int, *, run: int = RUN) -> list[Message]:
    """``spread`` over messages in posting order: ``n`` of them, spread over their time."""
    points = [(int(m.posted_at.timestamp()), len(m.text)) for m in messages]
    return [messages[i] for i in spread(points, n, run=run)]
