"""HTML pages whose markup nests messages: every message block is stored, or named.

Real exports leave a message's ``div`` open after its inline bot buttons, so each later
message of the page nests inside it; hostile pages nest tags past libxml2's depth limit,
close the history early or hide blocks in raw-text elements. The fixtures are this
project's own chats (``html_chats``) rendered by the exporter's layout, then broken.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import html_chats as hc
import pytest
from export_builders import write
from export_html_builder import render_pages, write_html
from lxml import etree

from toolkit.ingest import import_export
from toolkit.ingest.export.report import ImportReport
from toolkit.models import Message, MessageFilter
from toolkit.store import SQLiteStore

_IDS = re.compile(r'id="message(\d+)"')


def _import(tmp_path: Path, folder: Path, name: str = "s") -> tuple[ImportReport, list[Message]]:
    store = SQLiteStore(tmp_path / f"{name}.sqlite3")
    try:
        report = import_export(store, folder)
        source = report.sources[0].source
        return report, store.messages_in_period(source.id, MessageFilter(include_service=True))
    finally:
        store.close()


def _fields(m: Message) -> tuple[Any, ...]:
    return (m.messenger_message_id, m.sender_name, m.text, m.reply_to, m.reactions, m.posted_at)


def _page_ids(folder: Path) -> set[int]:
    return {
        int(i) for page in folder.glob("messages*.html") for i in _IDS.findall(page.read_text())
    }


def test_the_exporters_bot_button_page_nests_every_later_message(tmp_path: Path) -> None:
    """The fixture does what real exports do: later blocks nest in the buttons message."""
    page = render_pages(hc.with_bot_buttons(50), per_page=1000)[0][1]
    root = etree.fromstring(page.encode(), etree.HTMLParser(encoding="utf-8"))
    last = root.xpath("//div[@id='message52']")[0]
    owners = [a.get("id") for a in last.iterancestors() if (a.get("id") or "").startswith("m")]
    assert owners[-1] == "message2"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_bot_button_message_followed_by_50_messages_stores_them_all_as_json_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    chat = hc.with_bot_buttons(50)
    if streamed:
        monkeypatch.setattr("toolkit.ingest.export.html.page.MAX_PAGE_BYTES", 10)
    json_report, from_json = _import(tmp_path, write(tmp_path / "result.json", chat), "json")
    folder = write_html(tmp_path / "html", chat, per_page=30)
    report, from_html = _import(tmp_path, folder)
    assert [_fields(m) for m in from_html] == [_fields(m) for m in from_json]
    assert len(from_html) == len(chat["messages"]) == 53
    imported = report.sources[0]
    assert imported.unit == "block"
    assert imported.seen == imported.stored + imported.skipped
    assert imported.skipped_by_reason == {"date separator": imported.seen - 53}
    assert report.warnings() == []
    assert json_report.sources[0].seen == 53
    assert json_report.sources[0].unit == "record"


def _hostile(tmp_path: Path, markup: str, *, at: int = 5, count: int = 20) -> Path:
    """A chat of ``count`` messages whose message ``at`` holds ``markup`` as raw HTML."""
    chat = hc.big(count)
    chat["messages"][at - 1]["text"] = "HOSTILEMARK"
    folder = tmp_path / "html"
    folder.mkdir()
    for name, page in render_pages(chat, per_page=1000):
        (folder / name).write_text(page.replace("HOSTILEMARK", markup), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "markup",
    [
        "<b>" * 260 + "deep" + "</b>" * 260,
        "text</div></body></html>",
        "text</div></div></div></div></div></div></body></html>",
        "<div>" * 40 + "unclosed",
        "<table><tr><td>cell",
        "<span><i>open",
    ],
    ids=["260-b", "stray-end", "stray-ends", "40-div", "table", "inline"],
)
def test_hostile_markup_in_a_message_loses_no_message(tmp_path: Path, markup: str) -> None:
    folder = _hostile(tmp_path, markup)
    report, stored = _import(tmp_path, folder)
    assert [m.messenger_message_id for m in stored] == list(range(1, 21))
    assert report.warnings() == []
    texts = [m["text"] for m in hc.big(20)["messages"]]
    assert [m.text for m in stored[5:]] == texts[5:]
    assert texts[5] not in stored[4].text  # the hostile message holds its own text only
    imported = report.sources[0]
    assert imported.seen == imported.stored + imported.skipped


def test_nesting_past_the_parsers_limit_is_read_on_and_the_cut_is_named(tmp_path: Path) -> None:
    folder = _hostile(tmp_path, "<b>" * 3000 + "deep" + "</b>" * 3000)
    report, stored = _import(tmp_path, folder)
    assert [m.messenger_message_id for m in stored] == list(range(1, 21))
    notes = " ".join(report.sources[0].notes)
    assert "messages.html: the parser stopped at line" in notes
    assert "message5" in notes
    assert "Excessive depth" in notes


@pytest.mark.parametrize(
    "markup", ["<textarea>swallowed", "<script>swallowed", "<!-- swallowed"], ids=str
)
def test_blocks_swallowed_by_raw_text_are_read_again(tmp_path: Path, markup: str) -> None:
    folder = _hostile(tmp_path, markup)
    report, stored = _import(tmp_path, folder)
    assert [m.messenger_message_id for m in stored] == list(range(1, 21))
    assert report.warnings() == []


def test_an_id_that_is_no_block_is_named_with_its_line_and_neighbours(tmp_path: Path) -> None:
    folder = _hostile(tmp_path, '<span id="message77">not a block</span>')
    report, stored = _import(tmp_path, folder)
    assert len(stored) == 20
    imported = report.sources[0]
    assert imported.skipped_by_reason["unreadable block"] == 1
    (named,) = [n for n in imported.notes if "could not be read" in n]
    assert re.search(r"1 message block \(id 77\) at line \d+, after message id 5", named)
    assert any("warning" in w and "unreadable block" in w for w in report.warnings())
    assert "1 message block (id 77)" in report.line()


def test_a_stored_count_that_does_not_add_up_is_a_warning(tmp_path: Path) -> None:
    """A block with its id in single quotes is read, but not counted in the bytes: the
    report says the count is off rather than pretend it balances."""
    folder = _hostile(tmp_path, "x")
    page = folder / "messages.html"
    page.write_text(page.read_text().replace('id="message7"', "id='message7'"))
    report, stored = _import(tmp_path, folder)
    assert len(stored) == 20
    assert report.sources[0].unaccounted == -1
    assert "1 too many" in report.warnings()[0]
