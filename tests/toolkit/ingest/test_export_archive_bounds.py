"""A zip's unpacked size is bounded per member and in all (a few times the archive), and
its members, ``lists/chats.html`` included, are streamed: memory stays flat."""

from __future__ import annotations

import random
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import html_chats as hc
import pytest
from export_html_builder import render_pages

from toolkit.errors import InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.export import archive as archive_module
from toolkit.ingest.export.html import chats as chats_module
from toolkit.ingest.export.report import ImportReport
from toolkit.store import SQLiteStore


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "store.sqlite3")
    yield store
    store.close()


def _entry(folder: str, kind: str, title: str) -> str:
    return (
        f'<a class="entry block_link clearfix" href="../chats/{folder}/messages.html#allow_back">'
        f'<div class="body"><div class="pull_right info details">{kind}</div>'
        f'<div class="name bold">{title}</div></div></a>\n'
    )


def _listing(entries: int, *, ours_at: int, seed: int = 7) -> str:
    """A ``lists/chats.html`` of ``entries`` chats with varied titles (so it compresses as
    text does, under the ratio bound); ``chat_001`` (a channel) listed at ``ours_at``."""
    rng = random.Random(seed)
    parts = ['<html><body><div class="entry_list">\n']
    for n in range(entries):
        if n == ours_at:
            parts.append(_entry("chat_001", "channel", "Ours"))
        title = f"{rng.getrandbits(160):040x}"
        parts.append(_entry(f"chat_{100_000 + n}", "group", title))
    parts.append("</div></body></html>")
    return "".join(parts)


def _account_zip(path: Path, listing: str) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("DataExport/lists/chats.html", listing)
        for name, page in render_pages(hc.channel(), per_page=4):
            archive.writestr(f"DataExport/chats/chat_001/{name}", page)
    return path


def test_many_small_members_cannot_add_up_past_the_bound(db: SQLiteStore, tmp_path: Path) -> None:
    """Each 1 MiB member passes the ratio check (too small to be judged by it); together
    they unpack far past a few times the archive."""
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, page in render_pages(hc.big(5), per_page=10):
            archive.writestr(f"ChatExport/{name}", page)
        for n in range(100):
            archive.writestr(f"ChatExport/files/f{n}.txt", b"\0" * (1024 * 1024))
    assert path.stat().st_size < 512 * 1024
    with pytest.raises(InvalidRequest) as caught:
        import_export(db, path)
    message = str(caught.value)
    assert message.startswith("cannot import many.zip: its members unpack to more than ")
    assert f"over {archive_module.MAX_INFLATION} times its 0." in message
    assert message.endswith("MiB (a zip bomb?); nothing was imported")
    assert db.list_sources() == []


def test_a_member_over_its_own_bound_is_refused(
    db: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive_module, "MAX_MEMBER_BYTES", 1024 * 1024)
    path = _account_zip(tmp_path / "a.zip", _listing(8000, ours_at=0))
    with pytest.raises(InvalidRequest, match=r"'DataExport/lists/chats.html' unpacks to more than"):
        import_export(db, path)


def _peak(db: SQLiteStore, path: Path) -> tuple[int, ImportReport]:
    tracemalloc.start()
    try:
        report = import_export(db, path)
        return tracemalloc.get_traced_memory()[1], report
    finally:
        tracemalloc.stop()


def test_the_listing_is_streamed_in_flat_memory(tmp_path: Path) -> None:
    small = _account_zip(tmp_path / "small.zip", _listing(100, ours_at=50))
    listing = _listing(60_000, ours_at=50_000)
    assert len(listing) > 12 * 1024 * 1024
    big = _account_zip(tmp_path / "big.zip", listing)
    del listing
    peaks = []
    for name, path in (("a", small), ("b", small), ("c", big)):
        store = SQLiteStore(tmp_path / f"{name}.sqlite3")
        try:
            peak, report = _peak(store, path)
        finally:
            store.close()
        peaks.append(peak)
        (imported,) = report.sources
        assert imported.source.chat_type == "private_channel"  # its type, from the listing
        assert "read as a channel" not in report.line()
    # the listing read whole would add 12 MiB and more; its every entry kept, 5 MiB
    assert peaks[2] < peaks[1] + 2 * 1024 * 1024, peaks


def test_a_chat_past_the_listings_bound_is_typed_by_its_messages(
    db: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chats_module, "MAX_LISTING_BYTES", 64 * 1024)
    path = _account_zip(tmp_path / "a.zip", _listing(2000, ours_at=1500))
    report = import_export(db, path)
    assert report.sources[0].source.chat_type == "private_channel"
    assert "read as a channel (its posts are signed with its name)" in report.line()
