"""An HTML export names no chat id: a chat's identity never comes from its title alone.

Two chats titled alike (two single-chat exports, or two folders of one account export)
stay two sources and never update each other's messages; the same chat imported again,
or a newer export of it, lands on its source; a source stored under the older
title-only id is kept; an account export's chats can each be named by ``--ref``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import html_chats as hc
import pytest
from export_html_builder import write_html

from toolkit.errors import InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.export.html.page import synthetic_chat_id
from toolkit.models import MessageFilter
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore


def _family(first_words: str, *, offset: int = 0) -> dict[str, Any]:
    chat = hc.Chat("Family", "private_supergroup", 1, timedelta(hours=2))
    for n in range(6):
        chat.say(offset + n, (hc.ANNA, hc.OLEG)[n % 2], f"{first_words} {n}")
    return chat.data


def _texts(store: SQLiteStore, key: str) -> list[str]:
    source = store.get_source(parse_ref(key))
    return [m.text for m in store.messages_in_period(source.id, MessageFilter())]


def test_two_chats_with_one_title_stay_two_sources(tmp_path: Path, store: SQLiteStore) -> None:
    first = import_export(store, write_html(tmp_path / "a", _family("Dinner at", offset=0)))
    second = import_export(store, write_html(tmp_path / "b", _family("Trip on", offset=90)))
    assert (second.total.inserted, second.total.updated) == (6, 0)
    keys = [first.sources[0].source.key, second.sources[0].source.key]
    assert keys[0] != keys[1]
    assert _texts(store, keys[0])[0] == "Dinner at 0"
    assert _texts(store, keys[1])[0] == "Trip on 0"
    assert "give --ref c/<id>" in second.line()


def test_the_same_chat_and_a_newer_export_of_it_land_on_its_source(
    tmp_path: Path, store: SQLiteStore
) -> None:
    chat = _family("Dinner at")
    first = import_export(store, write_html(tmp_path / "a", chat))
    chat["messages"].append(dict(chat["messages"][-1], id=7, text="Later news"))
    again = import_export(store, write_html(tmp_path / "b", chat))
    assert again.sources[0].source.key == first.sources[0].source.key
    assert (again.total.inserted, again.total.unchanged) == (1, 6)


def test_a_source_stored_under_the_title_only_id_is_kept(
    tmp_path: Path, store: SQLiteStore
) -> None:
    folder = write_html(tmp_path / "a", _family("Dinner at"))
    legacy = f"c/{synthetic_chat_id('Family')}"
    import_export(store, folder, ref=legacy)  # as an older version stored it
    again = import_export(store, folder)
    assert again.sources[0].source.key == legacy
    assert (again.total.inserted, again.total.unchanged) == (0, 6)
    other = import_export(store, write_html(tmp_path / "b", _family("Trip on", offset=90)))
    assert other.sources[0].source.key != legacy
    assert _texts(store, legacy)[0] == "Dinner at 0"


def _account(root: Path) -> Path:
    write_html(root / "chats" / "chat_001", _family("Dinner at"))
    write_html(root / "chats" / "chat_002", _family("Trip on", offset=90))
    write_html(root / "chats" / "chat_003", hc.personal())
    return root


def test_an_account_export_with_two_chats_of_one_title_keeps_both(
    tmp_path: Path, store: SQLiteStore
) -> None:
    report = import_export(store, _account(tmp_path / "DataExport"))
    assert len({s.source.key for s in report.sources}) == 3
    assert report.total.inserted == 6 + 6 + 5
    assert report.total.updated == 0


def test_an_account_export_takes_a_ref_per_chat_folder(tmp_path: Path, store: SQLiteStore) -> None:
    root = _account(tmp_path / "DataExport")
    report = import_export(store, root, ref="chat_003=c/2004,chats/chat_001=c/1500000777")
    keys = {s.source.title: s.source.key for s in report.sources}
    assert keys["Mike"] == "c/2004"
    assert _texts(store, "c/1500000777")[0] == "Dinner at 0"
    assert len(report.sources) == 3


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("c/2004", r"name each chat by its folder \(chat_001=c/<id>\)"),
        ("chat_009=c/5", "has no chat folder chat_009"),
        ("chat_001=c/5,chat_001=c/6", "each folder once"),
    ],
)
def test_an_account_export_refuses_a_ref_it_cannot_place(
    tmp_path: Path, store: SQLiteStore, ref: str, message: str
) -> None:
    with pytest.raises(InvalidRequest, match=message):
        import_export(store, _account(tmp_path / "DataExport"), ref=ref)
    assert store.list_sources() == []


def test_a_page_missing_from_a_set_is_named_and_a_warning(
    tmp_path: Path, store: SQLiteStore
) -> None:
    folder = write_html(tmp_path / "html", hc.big(23), per_page=5)
    (folder / "messages2.html").unlink()
    (folder / "messages4.html").unlink()
    report = import_export(store, folder)
    assert report.total.inserted == 13
    (warning,) = report.warnings()
    assert "2 page(s) missing from the set of html: messages2.html, messages4.html" in warning
    assert report.sources[0].unaccounted == 0
