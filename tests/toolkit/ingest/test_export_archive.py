"""A ``.zip`` of a JSON or HTML export imports as it is; an unsafe archive is one line."""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import html_chats as hc
import pytest
from export_builders import write
from export_html_builder import render_pages

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.export.archive import MAX_RATIO
from toolkit.store import SQLiteStore


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "store.sqlite3")
    yield store
    store.close()


def _zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_a_zip_of_an_html_export_imports_every_page_in_order(
    db: SQLiteStore, tmp_path: Path
) -> None:
    pages = render_pages(hc.big(23), per_page=5)
    members = {f"ChatExport_2024-05-06/{name}": page for name, page in reversed(pages)}
    members["ChatExport_2024-05-06/css/style.css"] = "body {}"
    report = import_export(db, _zip(tmp_path / "export.zip", members))
    assert report.total.inserted == 23
    assert "HTML export, 5 pages" in report.line()
    source = report.sources[0].source
    stored = db.messages_in_period(source.id)
    assert [m.messenger_message_id for m in stored] == list(range(1, 24))


def test_a_zip_of_a_json_export_equals_the_file(db: SQLiteStore, tmp_path: Path) -> None:
    chat = hc.personal()
    plain = write(tmp_path / "result.json", chat)
    archive = _zip(tmp_path / "export.zip", {"ChatExport/result.json": plain.read_bytes()})
    first = import_export(db, archive)
    assert first.total.inserted == 5
    again = import_export(db, plain)
    assert (again.total.inserted, again.total.unchanged) == (0, 5)


def test_a_zip_of_a_truncated_json_export_says_where_it_broke(
    db: SQLiteStore, tmp_path: Path
) -> None:
    archive = _zip(tmp_path / "export.zip", {"result.json": '{"name": "x", "id": 3, "messages": ['})
    with pytest.raises(ImportFormatError, match="truncated"):
        import_export(db, archive)
    assert db.list_sources() == []


def test_a_zip_bomb_is_refused_before_it_is_inflated(db: SQLiteStore, tmp_path: Path) -> None:
    bomb = _zip(tmp_path / "bomb.zip", {"result.json": b"0" * (8 * 1024 * 1024)})
    with zipfile.ZipFile(bomb) as archive:
        info = archive.getinfo("result.json")
        assert info.file_size > MAX_RATIO * info.compress_size
    with pytest.raises(InvalidRequest, match=r"unpacks .* times its packed size .*zip bomb") as err:
        import_export(db, bomb)
    assert "\n" not in str(err.value)
    assert db.list_sources() == []


@pytest.mark.parametrize("name", ["../result.json", "/etc/result.json", "a/../../messages.html"])
def test_a_member_outside_the_archive_is_refused(
    db: SQLiteStore, tmp_path: Path, name: str
) -> None:
    archive = _zip(tmp_path / "evil.zip", {name: "{}"})
    with pytest.raises(InvalidRequest, match="points outside the archive"):
        import_export(db, archive)


def test_a_symbolic_link_in_the_archive_is_refused(db: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w") as archive:
        link = zipfile.ZipInfo("export/messages.html")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    with pytest.raises(InvalidRequest, match="is a symbolic link"):
        import_export(db, path)


def test_a_zip_without_an_export_and_a_broken_zip_are_one_line(
    db: SQLiteStore, tmp_path: Path
) -> None:
    with pytest.raises(InvalidRequest, match=r"holds no result\.json"):
        import_export(db, _zip(tmp_path / "notes.zip", {"notes.txt": "hello"}))
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is no archive")
    with pytest.raises(ImportFormatError, match="not a readable zip archive"):
        import_export(db, broken)


def test_an_export_in_both_formats_is_read_from_its_json(db: SQLiteStore, tmp_path: Path) -> None:
    """Telegram Desktop can write both at once; the JSON carries sender ids and edits."""
    chat = hc.personal()
    members: dict[str, bytes | str] = {f"Both/{n}": p for n, p in render_pages(chat)}
    members["Both/result.json"] = write(tmp_path / "result.json", chat).read_bytes()
    report = import_export(db, _zip(tmp_path / "both.zip", members))
    assert "HTML export" not in report.line()
    source = report.sources[0].source
    assert source.internal_id == 2004
    senders = {m.sender_peer_id for m in db.messages_in_period(source.id)}
    assert senders == {"user2004", "user2005"}
    folder = tmp_path / "folder"
    folder.mkdir()
    for name, data in members.items():
        target = folder / name.split("/", 1)[1]
        target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    again = import_export(db, folder)
    assert (again.total.inserted, again.total.unchanged) == (0, 5)
    assert "HTML export" not in again.line()
