"""Exports re-saved in another encoding (a BOM, UTF-16, UTF-32) are decoded, not "not JSON"."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from toolkit.ingest import import_export
from toolkit.ingest.export.encoding import sniff
from toolkit.store import SQLiteStore

EXPORT = {
    "name": "Привет chat 👋",
    "type": "private_group",
    "id": 31,
    "messages": [
        {"id": 1, "type": "message", "date_unixtime": "1714000060", "text": "héllo 😀 мир"},
        {"id": 2, "type": "message", "date_unixtime": "1714000120", "text": "x" * 40_000},
    ],
}
ENCODINGS = [
    ("utf-8-sig", "UTF-8 with a byte-order mark"),
    ("utf-16", "UTF-16-LE with a byte-order mark"),  # Python writes the native (LE) mark
    ("utf-16-be", "UTF-16-BE,"),
    ("utf-16-le", "UTF-16-LE,"),
    ("utf-32", "UTF-32-LE with a byte-order mark"),
    ("utf-32-be", "UTF-32-BE,"),
]


@pytest.mark.parametrize(("encoding", "said"), ENCODINGS)
def test_an_export_in_another_unicode_encoding_imports_and_says_so(
    store: SQLiteStore, tmp_path: Path, encoding: str, said: str
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(EXPORT, ensure_ascii=False), encoding=encoding)
    report = import_export(store, path, batch_size=1)
    (imported,) = report.sources
    assert imported.source.title == "Привет chat 👋"
    texts = [m.text for m in store.iter_messages(imported.source.id)]
    assert texts == ["héllo 😀 мир", "x" * 40_000]
    assert said in report.line()


def test_plain_utf8_says_nothing_about_its_encoding(store: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(EXPORT, ensure_ascii=False), encoding="utf-8")
    assert "UTF" not in import_export(store, path).line()


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (codecs.BOM_UTF8 + b"{", ("UTF-8", 3)),
        (codecs.BOM_UTF32_LE, ("UTF-32-LE", 4)),
        (codecs.BOM_UTF16_LE + b"{\0", ("UTF-16-LE", 2)),
        (b"\0{\0\n", ("UTF-16-BE", 0)),
        (b"{\0\0\0", ("UTF-32-LE", 0)),
        (b"{\n  ", ("UTF-8", 0)),
        (b"", ("UTF-8", 0)),
    ],
)
def test_sniff_follows_the_json_rule(head: bytes, expected: tuple[str, int]) -> None:
    assert sniff(head) == expected
