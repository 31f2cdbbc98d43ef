"""A synced message's view and forward counts, checked where they enter the store.

Telegram's counts are never negative, and no count passes a signed 64-bit integer
(the stores' column). A client that sends one (a bug, a hostile server, a test double)
would store a number the summaries then rank by: such a count is stored as unknown
(``None``, as for a message that shows none) and the sync's report says how many.
"""

from __future__ import annotations

from dataclasses import replace

from toolkit.models import Message

MAX_COUNTER = 2**63 - 1


def _valid(count: int | None) -> bool:
    return count is None or 0 <= count <= MAX_COUNTER


def checked_counters(message: Message) -> Message:
    """``message`` itself when its views and forwards are possible counts, else a copy
    with each impossible one unknown (``None``)."""
    if _valid(message.views) and _valid(message.forwards):
        return message
    return replace(
        message,
        views=message.views if _valid(message.views) else None,
        forwards=message.forwards if _valid(message.forwards) else None,
    )


def counter_notes(key: str, count: int) -> tuple[str, ...]:
    """The report's line on ``count`` messages of the source ``key`` whose counts were
    impossible (none when there were none)."""
    if not count:
        return ()
    noun = "message" if count == 1 else "messages"
    return (
        f"{count} {noun} of {key} came with negative or impossible view or forward counts: "
        "stored as unknown",
    )
