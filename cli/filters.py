"""Options several commands share: forum topic, senders, ``--json``."""

from __future__ import annotations

from typing import Annotated, TypedDict

import typer

from toolkit.limits import MAX_TOPIC_ID  # the request models' bound, no import

TopicOption = Annotated[
    int | None,
    typer.Option(
        "--topic", min=1, max=MAX_TOPIC_ID, help="Only this forum topic (its id; General is 1)."
    ),
]
SenderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--sender",
        help="Only messages of this sender (user123, channel123); repeat for several.",
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON document (the API's field names).")
]


class Filters(TypedDict):
    """``--topic`` and ``--sender`` as the workspace's keyword arguments."""

    topic_id: int | None
    sender_peer_ids: list[str] | None


def filters(topic: int | None, sender: list[str] | None) -> Filters:
    """The workspace arguments of ``--topic``/``--sender`` (no ``--sender``: everyone)."""
    return Filters(topic_id=topic, sender_peer_ids=sender or None)
