"""The shipped demo exports import with the promised properties; large imports stream."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from toolkit.demo import demo_files
from toolkit.ingest import ImportReport, import_export
from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.refs import message_link
from toolkit.store import SQLiteStore


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[SQLiteStore, list[ImportReport]]]:
    store = SQLiteStore(":memory:")
    reports = [import_export(store, path, ref=handle) for path, handle in demo_files()]
    yield store, reports
    store.close()


def _all(store: SQLiteStore, source_id: int) -> list[Message]:
    return store.messages_in_period(source_id, MessageFilter(include_service=True))


def test_demo_files_are_shipped_with_their_readme() -> None:
    files = demo_files()
    assert [handle for _, handle in files] == ["@mlens_demo_en", "@mlens_demo_ru"]
    for path, _ in files:
        assert path.is_file()
        assert path.stat().st_size < 3_000_000
    readme = (files[0][0].parent / "README.md").read_text(encoding="utf-8")
    for needed in ("scripts/make_demo.py", "MIT", "CC BY-SA 4.0", "chitchat", "XQuAD", "STSb"):
        assert needed in readme


@pytest.mark.parametrize(
    ("index", "handle", "kind"),
    [(0, "mlens_demo_en", SourceKind.CHAT), (1, "mlens_demo_ru", SourceKind.CHANNEL)],
)
def test_demo_sources_have_what_was_promised(
    demo: tuple[SQLiteStore, list[ImportReport]], index: int, handle: str, kind: SourceKind
) -> None:
    store, reports = demo
    (item,) = reports[index].sources
    source = item.source
    assert (source.handle, source.kind) == (handle, kind)
    assert message_link(source, 5) == f"https://t.me/{handle}/5"
    stats = store.source_stats(source.id)
    assert stats.message_count >= 2000  # service messages not counted
    assert stats.first_message_at
    assert stats.last_message_at
    assert stats.last_message_at - stats.first_message_at >= timedelta(weeks=4)
    messages = _all(store, source.id)
    ids = {m.messenger_message_id for m in messages}
    replies = [m for m in messages if m.reply_to is not None]
    assert len(replies) >= 50
    assert all(m.reply_to in ids for m in replies)
    assert sum(1 for m in messages if m.edited_at is not None) >= 30
    service = [m for m in messages if m.is_service]
    assert any("pinned message" in m.text for m in service)
    assert any("changed the title" in m.text for m in service)
    media = [m for m in messages if m.media]
    assert any(m.media == "photo" and not m.text for m in media)  # media only
    assert any(m.media == "photo" and m.text for m in media)  # with a caption
    # Posting order equals id order, as in a real export.
    assert [m.messenger_message_id for m in messages] == sorted(ids)


def test_demo_chat_has_joins_and_several_people(
    demo: tuple[SQLiteStore, list[ImportReport]],
) -> None:
    store, reports = demo
    messages = _all(store, reports[0].sources[0].source.id)
    assert sum(1 for m in messages if m.text.endswith("joined the group")) >= 10
    assert len({m.sender_peer_id for m in messages if not m.is_service}) >= 20


def test_demo_reimport_is_a_no_op(demo: tuple[SQLiteStore, list[ImportReport]]) -> None:
    store, reports = demo
    for (path, handle), report in zip(demo_files(), reports, strict=True):
        again = import_export(store, path, ref=handle).total
        assert (again.inserted, again.updated, again.unchanged) == (0, 0, report.total.inserted)


def _big_export(path: Path, n: int) -> int:
    """Write an ``n``-message export one message at a time; return its size in bytes."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"name": "Big", "type": "private_supergroup", "id": 4242, "messages": [\n')
        for i in range(1, n + 1):
            text = ["message number ", {"type": "bold", "text": str(i)}, " and some more words"]
            item = {"id": i, "type": "message", "date_unixtime": str(1_700_000_000 + 30 * i),
                    "from": f"User {i % 37}", "from_id": f"user{i % 37}", "text": text,
                    "text_entities": [{"type": "plain", "text": "message number "},
                                      text[1], {"type": "plain", "text": text[2]}]}  # fmt: skip
            # Indented as Telegram Desktop writes it.
            out.write(("," if i > 1 else "") + json.dumps(item, indent=1) + "\n")
        out.write("]}\n")
    return path.stat().st_size


def _peak(path: Path) -> tuple[int, int]:
    store = SQLiteStore(":memory:")
    try:
        tracemalloc.start()
        report = import_export(store, path, batch_size=250)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        store.close()
    return peak, report.total.inserted


@pytest.mark.slow
def test_import_streams_in_flat_memory(tmp_path: Path) -> None:
    small_size = _big_export(tmp_path / "small.json", 2_000)
    big_size = _big_export(tmp_path / "big.json", 8_000)
    small_peak, small_n = _peak(tmp_path / "small.json")
    big_peak, big_n = _peak(tmp_path / "big.json")
    assert (small_n, big_n) == (2_000, 8_000)
    assert big_size > 3.5 * small_size
    # Four times the file, the same memory: the peak is set by one batch, not the file.
    assert big_peak < 1.25 * small_peak
    assert big_peak < big_size / 10


def test_demo_texts_carry_no_mojibake(demo: tuple[SQLiteStore, list[ImportReport]]) -> None:
    store, reports = demo
    marks = ("Äô", "Äú", "Äù", "Ã©", "â€", "Ð°", "Ñ\x81")  # UTF-8 read as Mac Roman or Latin-1
    for report in reports:
        for item in report.sources:
            for message in _all(store, item.source.id):
                assert not any(mark in message.text for mark in marks), message.text
