"""Hostile characters in an export reach SQLite and PostgreSQL the same way, cleaned once."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_backends import Store, outside_query

from toolkit.ingest import import_export

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL

# Written by hand: JSON escapes for NUL, ESC, BEL, a C1 control and a lone surrogate.
EXPORT = rb"""{"name": "Evil\u0000 chat\u001b[31m", "type": "private_supergroup", "id": 4242,
 "messages": [
  {"id": 1, "type": "service", "date": "2024-04-25T02:07:40", "date_unixtime": "1714000060",
   "actor": "Mal\u0007lory", "actor_id": "user9", "action": "topic_created",
   "title": "Top\u0000ic\u001b]0;x\u0007"},
  {"id": 2, "type": "message", "date": "2024-04-25T02:08:40", "date_unixtime": "1714000120",
   "from": "Eve\u0000", "from_id": "user7", "reply_to_message_id": 1,
   "text": "nul\u0000 esc\u001b[2J bell\u0007 c1\u0085 half\ud800 ok\ttab\nline\r\nend"},
  {"id": 3, "type": "message", "date": "2024-04-25T02:09:40", "date_unixtime": "1714000180",
   "from": "Bob", "from_id": "user8", "reply_to_message_id": 1,
   "text": [{"type": "bold", "text": "bo\u0000ld"}, "!"]}
 ]}"""


def _forbidden(value: object) -> bool:
    return isinstance(value, str) and any(
        c not in "\t\n" and (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF)
        for c in value
    )


def test_control_characters_are_cleaned_once_the_same_way_in_both_stores(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(EXPORT)
    report = import_export(store, path)
    (imported,) = report.sources
    assert imported.source.title == "Evil chat[31m"
    assert imported.result.inserted == 3
    assert any("3 messages" in n and "control characters" in n for n in imported.notes)
    texts = {m.messenger_message_id: m for m in store.iter_messages(imported.source.id)}
    # yajl turns a lone surrogate escape into "?"; any other reader's U+FFFD is cleaned too.
    assert texts[2].text in {
        "nul esc[2J bell c1 half? ok\ttab\nline\nend",
        "nul esc[2J bell c1 half\ufffd ok\ttab\nline\nend",
    }
    assert (texts[2].sender_name, texts[3].text) == ("Eve", "bold!")
    assert texts[1].text.startswith("Mallory")
    assert [t.title for t in store.list_topics(imported.source.id)] == ["Topic]0;x"]
    for table in ("sources", "messages", "topics"):
        rows = outside_query(store, f"SELECT * FROM {table}")  # type: ignore[arg-type]
        assert not any(_forbidden(v) for row in rows for v in row), table


def test_importing_the_cleaned_export_again_changes_nothing(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(EXPORT)
    import_export(store, path)
    (again,) = import_export(store, path).sources
    assert (again.result.inserted, again.result.updated, again.result.unchanged) == (0, 0, 3)
