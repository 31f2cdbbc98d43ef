"""The sample a source summary reads: spread over the source's time, runs of consecutive
messages, the runs that say the most, quiet times giving what they have, deterministic."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from toolkit.models import Message
from toolkit.summarize.sample import MIN_BUCKETS, RUN, spread, spread_messages

DAY = 86_400


def _even(count: int, chars: int = 80, step: int = 3600) -> list[tuple[int, int]]:
    return [(i * step, chars) for i in range(count)]


def test_all_points_when_there_are_no_more_than_asked() -> None:
    assert spread(_even(5), 5) == [0, 1, 2, 3, 4]
    assert spread(_even(5), 500) == [0, 1, 2, 3, 4]
    assert spread([], 10) == []
    assert spread(_even(5), 0) == []


def test_the_sample_covers_the_whole_time_evenly() -> None:
    points = _even(10_000)  # an hour apart for over a year
    picked = spread(points, 500)
    assert len(picked) == 500
    assert picked == sorted(set(picked))
    tenths = {points[i][0] * 10 // (points[-1][0] + 1) for i in picked}
    assert tenths == set(range(10))  # every tenth of the time is read
    # Runs of RUN consecutive messages, one per bucket: 50 places in time.
    runs = [i for i in picked if i - 1 not in picked]
    assert len(runs) == 500 // RUN
    assert all(i + k in picked for i in runs for k in range(RUN))


def test_a_small_sample_reads_single_messages_from_as_many_places() -> None:
    picked = spread(_even(1000), MIN_BUCKETS)
    assert len(picked) == MIN_BUCKETS
    steps = {b - a for a, b in itertools.pairwise(picked)}
    assert max(steps) - min(steps) <= 1  # evenly, one message per place in time


def test_a_run_with_content_beats_one_word_chatter() -> None:
    # A burst within one second (one bucket): "ok" and "lol" but for a stretch of long
    # messages; the sample is the run that holds them.
    points = [(0, 3) for _ in range(1000)]
    for i in range(400, 620):
        points[i] = (0, 180)
    assert spread(points, 200) == list(range(400, 600))
    # Weights stop at WEIGHT_CAP: a run of full messages is as good as one of huge posts
    # (the earliest of equals is taken).
    points = [(0, 3 if i < 100 else 250 if i < 300 else 5000) for i in range(1000)]
    assert spread(points, 200) == list(range(100, 300))


def test_quiet_times_give_what_they_have_and_busy_ones_the_rest() -> None:
    # 5 messages in 2019, then a busy 2026: a sample of 100 reads all 5 of the quiet
    # years' and 95 of the busy ones; never more than asked.
    quiet = [(i * 30 * DAY, 100) for i in range(5)]
    start = 7 * 365 * DAY
    busy = [(start + i * 60, 100) for i in range(5000)]
    picked = spread(quiet + busy, 100)
    assert len(picked) == 100
    assert set(range(5)) <= set(picked)


def test_the_same_points_give_the_same_sample() -> None:
    points = [(i * 37 % 1000 + i * 1000, (i * 7919) % 300) for i in range(3000)]
    assert spread(points, 250) == spread(list(points), 250)


@given(
    gaps=st.lists(st.integers(min_value=0, max_value=10 * DAY), min_size=1, max_size=400),
    sizes=st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=400),
    n=st.integers(min_value=1, max_value=300),
)
def test_a_sample_is_n_distinct_points_in_order(gaps: list[int], sizes: list[int], n: int) -> None:
    times = [sum(gaps[: i + 1]) for i in range(len(gaps))]
    points = [(t, sizes[i % len(sizes)]) for i, t in enumerate(times)]
    picked = spread(points, n)
    assert len(picked) == min(n, len(points))
    assert picked == sorted(set(picked))
    assert all(0 <= i < len(points) for i in picked)


def test_messages_are_sampled_by_the_same_rule() -> None:
    t0 = datetime(2019, 1, 1, tzinfo=UTC)
    messages = [
        Message(1, i, t0 + timedelta(hours=7 * i), "word " * (i % 9 + 1)) for i in range(700)
    ]
    points = [(int(m.posted_at.timestamp()), len(m.text)) for m in messages]
    assert spread_messages(messages, 120) == [messages[i] for i in spread(points, 120)]
