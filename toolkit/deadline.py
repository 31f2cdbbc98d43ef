"""A deadline for the work of one call, carried in a context variable.

A caller that must not work past a point in time (the service, for each request) runs
the work ``within(seconds)``; long loops of the toolkit call ``check()`` between steps
(an embedding engine call, say), which raises ``DeadlineExceeded`` once the time is up.
Context variables follow the work into the worker thread that runs it, so nothing
needs to be passed along; outside ``within`` there is no deadline and ``check`` is free.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from toolkit.errors import DeadlineExceeded

_deadline: ContextVar[tuple[float, float] | None] = ContextVar("mlens_deadline", default=None)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Run the block (and whatever it starts in this context) with a deadline.

    A nested ``within`` can only shorten the deadline, never extend it.
    """
    end = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None and outer[0] < end:
        end, seconds = outer
    token = _deadline.set((end, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise ``DeadlineExceeded`` when the current deadline has passed."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        raise exceeded()


def remaining() -> float | None:
    """Seconds left before the current deadline (0 once it has passed); ``None``
    outside ``within``."""
    current = _deadline.get()
    if current is None:
        return None
    return max(0.0, current[0] - time.monotonic())


def exceeded() -> DeadlineExceeded:
    """The error for work that could not finish within the current deadline."""
    current = _deadline.get()
    seconds = f" within {current[1]:g} s" if current is not None else ""
    return DeadlineExceeded(f"the work did not finish{seconds}; it was stopped")
