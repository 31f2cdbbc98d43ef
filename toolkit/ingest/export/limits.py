"""Bounded parse events of an export: nesting and string limits, before anything is built.

``export_events`` gives the ``(prefix, event, value)`` triples of ``ijson.parse``, but
rebuilds the prefixes itself from ijson's prefix-free ``basic_parse`` stream, keeping
a stack at most ``MAX_DEPTH`` deep, and refuses deeper nesting and longer strings with
a ``ValueError`` naming the place. (ijson's own ``parse`` joins the whole path for
every event: a 100,000-deep array costs gigabytes of prefix strings before the first
item could be looked at.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import ijson

# An export nests about six levels deep (chats.list.item.messages.item.text_entities.item);
# anything past 64 is not an export, and refusing it early keeps memory flat.
MAX_DEPTH = 64
# One string (a message text, a file name): 16 Mi characters. A 10 MB message still imports.
MAX_STRING_CHARS = 16 * 1024 * 1024


def _place(prefix: str) -> str:
    shown = prefix if len(prefix) <= 120 else prefix[:60] + " ... " + prefix[-40:]
    return f"at '{shown}'" if shown else "at the top level"


class Readable(Protocol):
    """A binary file, or anything with its ``read``."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes (``b""`` at the end)."""
        ...


def export_events(
    raw: Readable,
    *,
    buf_size: int = 16 * 1024,
    max_depth: int = MAX_DEPTH,
    max_string: int = MAX_STRING_CHARS,
) -> Iterator[tuple[str, str, Any]]:
    """``ijson.parse``-shaped ``(prefix, event, value)`` events of ``raw``, bounded.

    Args:
        raw: the export file, opened in binary mode.
        buf_size: bytes read at a time.
        max_depth: deepest nesting of arrays and objects allowed.
        max_string: longest string value or key allowed, in characters.

    Raises:
        ValueError: nesting or a string beyond the limits, naming where it is.
        ijson.JSONError: the bytes are not JSON.
    """
    # prefixes[-1] is the prefix of the container being read; keys[-1] the prefix of
    # the value being read inside it (``parent.key`` in an object, ``parent.item`` in
    # an array). Both stacks are at most ``max_depth`` deep.
    prefixes: list[str] = []
    keys: list[str] = []
    for event, value in ijson.basic_parse(raw, buf_size=buf_size, use_float=True):
        if event == "map_key":
            if len(value) > max_string:
                raise ValueError(
                    f"a key {_place(prefixes[-1])} is longer than {max_string} characters"
                )
            parent = prefixes[-1]
            keys[-1] = f"{parent}.{value}" if parent else value
            yield parent, event, value
            continue
        here = keys[-1] if keys else ""
        if event in ("start_map", "start_array"):
            if len(prefixes) >= max_depth:
                raise ValueError(f"nesting deeper than {max_depth} levels {_place(here)}")
            yield here, event, value
            if event == "start_map":
                prefixes.append(here)
                keys.append(here)
            else:
                item = f"{here}.item" if here else "item"
                prefixes.append(item)
                keys.append(item)
            continue
        if event in ("end_map", "end_array"):
            prefixes.pop()
            keys.pop()
            yield (keys[-1] if keys else ""), event, value
            continue
        if event == "string" and len(value) > max_string:
            raise ValueError(f"a string {_place(here)} is longer than {max_string} characters")
        yield here, event, value
