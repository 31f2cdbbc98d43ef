"""The reactions of one exported message, as ``(key, count)`` pairs (``Message.reactions``).

Telegram Desktop writes them (when a message has any) as a list of objects:
``{"type": "emoji", "count": 3, "emoji": "👍", "recent": [...]}``,
``{"type": "custom_emoji", "count": 1, "document_id": "5368..."}`` and
``{"type": "paid", "count": 50}``. Only the counts are kept, under the keys every
path shares (``toolkit.models``): the emoji itself, ``custom:<document id>``, ``paid``;
a type this reader does not know is kept under its own name. Who reacted (``recent``)
is left out. Pure functions, no I/O; a malformed entry raises ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from toolkit.models import CUSTOM_REACTION, PAID_REACTION, Reactions, reaction_counts


def _count(entry: dict[str, Any]) -> int:
    count = entry.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"a reaction's 'count' must be a non-negative integer, not {count!r}")
    return count


def _key(entry: dict[str, Any]) -> str:
    kind = entry.get("type", "emoji")  # lists written by hand often leave the type out
    if kind == "emoji":
        emoji = entry.get("emoji")
        if not isinstance(emoji, str) or not emoji.strip():
            raise ValueError(f"an emoji reaction without its 'emoji': {emoji!r}")
        return emoji.strip()
    if kind == "custom_emoji":
        document = entry.get("document_id")
        if isinstance(document, bool) or not isinstance(document, str | int) or document == "":
            raise ValueError(f"a custom emoji reaction without its 'document_id': {document!r}")
        return f"{CUSTOM_REACTION}{document}"
    if kind == "paid":
        return PAID_REACTION
    if not isinstance(kind, str) or not kind.strip():
        raise ValueError(f"a reaction's 'type' must be a name, not {kind!r}")
    return kind.strip()


def export_reactions(raw: dict[str, Any]) -> Reactions:
    """The reaction counts of an exported message (``()`` when it has none).

    Raises:
        ValueError: ``reactions`` is not a list of reaction objects with counts.
    """
    found = raw.get("reactions")
    if found is None:
        return ()
    if not isinstance(found, list):
        raise ValueError(f"'reactions' must be a list, not {type(found).__name__}")
    pairs = []
    for entry in found:
        if not isinstance(entry, dict):
            raise ValueError(f"a reaction must be a JSON object, not {type(entry).__name__}")
        pairs.append((_key(entry), _count(entry)))
    return reaction_counts(pairs)
