"""Options several commands share: forum topic, senders, ``--json``."""

from __future__ import annotations

from typing import Annotated

import typer

TopicOption = Annotated[
    int | None,
    typer.Option("--topic", min=1, help="Only this forum topic (its id; General is 1)."),
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
