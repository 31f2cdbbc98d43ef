"""What a source is, alone in its module: the CLI names it in an option's choices, and
``mlens --help`` should not load every domain type to say so (``toolkit.models``
re-exports it)."""

from enum import StrEnum


class SourceKind(StrEnum):
    """What a source is: a conversation among participants, or a broadcast channel."""

    CHAT = "chat"
    CHANNEL = "channel"
