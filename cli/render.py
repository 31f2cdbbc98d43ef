"""How the commands print: tables that survive a pipe, and one JSON document.

What a message, a title or a name holds is printed literally (``literal``): Rich markup
is escaped and control characters are shown as glyphs (ESC as ``␛``), so a message
can neither colour, hide nor move text on the reader's terminal.

``--json`` output is what every face answers: a search hit, a summary and a source are
the models of ``toolkit.wire`` (the ``/v1`` answers, the MCP tools' too); a message has
``messenger_message_id``, ``text``, ``sender_peer_id``, ``sender_name``, ``posted_at``,
``message_link``, ``reply_to`` and ``reactions`` (``{"👍": 3}``, ``{}`` for none, as on
a hit); a source's ``source_ref`` is the canonical ref, which every face accepts back.
Times are ISO 8601 UTC with ``Z``; ids are strings, as in the API.
"""

from __future__ import annotations

import sys
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

from cli.state import console

# Rich, the toolkit's models and its helpers are imported where a command prints: never
# for ``--help`` or a usage error (``tests/cli/test_cli_lazy_imports.py``).
if TYPE_CHECKING:
    from rich.console import RenderableType

    from toolkit.models import ApiKeyRecord, Message, SearchHit, Source, SourceStats, Summary

_UNBOUNDED = 1_000_000  # columns: a table printed to a pipe is as wide as its content


def literal(value: object, *, one_line: bool = False) -> str:
    """``value`` as text for ``console.print``, shown as it is: Rich markup escaped,
    control characters (terminal escapes) made visible (``toolkit.controls.visible``).

    Every message text, title, name or file name a command prints goes through this
    (tables through ``Table.to_rich``, which does the same).
    """
    from rich.markup import escape

    from toolkit.controls import visible

    return escape(visible(str(value), one_line=one_line))


def print_table(table: RenderableType) -> None:
    """Print a table on stdout; to a pipe or a file at its natural width.

    In a terminal the table fits the window; anywhere else no cell is cut or wrapped,
    so refs, ids and links arrive whole for a script to read.
    """
    if console().is_terminal:
        console().print(table)
    else:
        from rich.console import Console

        Console(file=sys.stdout, width=_UNBOUNDED, color_system=None).print(table)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        from toolkit.models import iso_z

        return iso_z(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def print_json(document: Any) -> None:
    """Write one JSON document on stdout (UTF-8 text, not escaped; no markup, no wrap)."""
    import json

    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2, default=_plain) + "\n")


def source_record(stats: SourceStats) -> dict[str, Any]:
    """A stored source as every face answers it, for its canonical ref (``SourceOut``)."""
    from toolkit.wire import source_out  # pydantic: not for --help

    return source_out(stats).model_dump(mode="json")


def message_record(source: Source, message: Message) -> dict[str, Any]:
    """One stored message; ``message_link`` is ``""`` where the messenger has none."""
    from toolkit.refs import message_link

    reply_to = message.reply_to
    return {
        "messenger_message_id": str(message.messenger_message_id),
        "text": message.text,
        "sender_peer_id": message.sender_peer_id,
        "sender_name": message.sender_name,
        "posted_at": message.posted_at,
        "message_link": message_link(
            source, message.messenger_message_id, topic_id=message.topic_id
        ),
        "reply_to": str(reply_to) if reply_to is not None else None,
        "reactions": dict(message.reactions),
    }


def hit_record(hit: SearchHit) -> dict[str, Any]:
    """A search hit as every face answers it (``SearchHitOut``; ``signals`` with ``--explain``)."""
    from toolkit.wire import hit_out

    return hit_out(hit).model_dump(mode="json")


def summary_record(summary: Summary) -> dict[str, Any]:
    """A summary as every face answers it, with its engine and language (``SummaryOut``)."""
    from toolkit.wire import summary_out

    return summary_out(summary).model_dump(mode="json")


def key_record(record: ApiKeyRecord) -> dict[str, Any]:
    """An API key's public record; the secret is never stored, so never shown."""
    return {
        "id": record.id,
        "name": record.name,
        "prefix": record.prefix,
        "scopes": record.scopes,
        "created_at": record.created_at,
        "last_used_at": record.last_used_at,
        "revoked_at": record.revoked_at,
    }
