"""Pages that are symbolic links out of the export folder are never read (named in the
report); a zip with two members of one name is refused in one line."""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

import html_chats as hc
import pytest
from export_html_builder import write_html

from toolkit.errors import InvalidRequest
from toolkit.ingest import import_export
from toolkit.models import MessageFilter
from toolkit.store import SQLiteStore


def _ids(store: SQLiteStore, source_id: int) -> list[int]:
    found = store.messages_in_period(source_id, MessageFilter(include_service=True))
    return [m.messenger_message_id for m in found]


def test_a_page_linked_out_of_the_folder_is_named_and_not_read(
    store: SQLiteStore, tmp_path: Path
) -> None:
    folder = write_html(tmp_path / "ChatExport", hc.big(30), per_page=10)
    secret = tmp_path / "elsewhere" / "messages.html"
    write_html(secret.parent, hc.big(10, name="Someone Else"), per_page=10)
    (folder / "messages2.html").unlink()
    (folder / "messages2.html").symlink_to(secret)
    report = import_export(store, folder)
    (imported,) = report.sources
    assert _ids(store, imported.source.id) == [*range(1, 11), *range(21, 31)]
    (warning,) = report.warnings()
    assert "messages2.html is a symbolic link out of the export folder: not read" in warning
    assert "missing" not in warning


def test_a_link_inside_the_folder_is_read(store: SQLiteStore, tmp_path: Path) -> None:
    folder = write_html(tmp_path / "ChatExport", hc.big(30), per_page=10)
    (folder / "kept").mkdir()
    (folder / "messages3.html").rename(folder / "kept" / "page3.html")
    (folder / "messages3.html").symlink_to(Path("kept") / "page3.html")
    report = import_export(store, folder)
    assert report.total.inserted == 30
    assert report.warnings() == []


def test_an_export_whose_every_page_links_out_is_refused(
    tmp_path: Path, store: SQLiteStore
) -> None:
    outside = write_html(tmp_path / "outside", hc.big(5), per_page=10)
    folder = tmp_path / "ChatExport"
    folder.mkdir()
    (folder / "messages.html").symlink_to(outside / "messages.html")
    with pytest.raises(InvalidRequest, match=r"no page of it can be read: .*symbolic link out"):
        import_export(store, folder)
    assert store.list_sources() == []


def test_an_account_chat_folder_that_is_a_link_is_named(store: SQLiteStore, tmp_path: Path) -> None:
    root = tmp_path / "Export"
    write_html(root / "chats" / "chat_001", hc.big(5, name="Ours"), per_page=10)
    outside = write_html(tmp_path / "outside", hc.big(7, name="Theirs"), per_page=10)
    (root / "chats" / "chat_002").symlink_to(outside)
    report = import_export(store, root)
    assert [s.source.title for s in report.sources] == ["Ours"]
    (warning,) = report.warnings()
    assert warning == (
        "warning: Export: chats/chat_002 is a symbolic link (out of the export folder)"
    )


def _two_members(path: Path, first: bytes, second: str, other: bytes) -> None:
    with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile's own "Duplicate name"
        archive.writestr("ChatExport/messages.html", first)
        info = zipfile.ZipInfo("ChatExport/messages.html")
        info.filename = second  # as it stands: zipfile would turn a backslash into a slash
        archive.writestr(info, other)


@pytest.mark.parametrize(
    "second", ["ChatExport/messages.html", "ChatExport//messages.html", "ChatExport\\messages.html"]
)
def test_a_zip_with_two_members_of_one_name_is_refused(
    store: SQLiteStore, tmp_path: Path, second: str
) -> None:
    first = write_html(tmp_path / "a", hc.big(5, name="First"), per_page=10) / "messages.html"
    other = write_html(tmp_path / "b", hc.big(5, name="Second"), per_page=10) / "messages.html"
    path = tmp_path / "export.zip"
    _two_members(path, first.read_bytes(), second, other.read_bytes())
    with pytest.raises(InvalidRequest) as caught:
        import_export(store, path)
    assert str(caught.value) == (
        "cannot import export.zip: it holds two members named 'ChatExport/messages.html'; "
        "nothing was imported"
    )
    assert store.list_sources() == []
