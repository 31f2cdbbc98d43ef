"""HTML exports: the store after an HTML import equals it after the JSON import.

Each chat of ``html_chats`` is written both as Telegram Desktop's JSON export and as its
HTML export (``export_html_builder``, the exporter's own layout), imported into two
stores, and compared message by message. The HTML export carries no sender ids and no
time for service messages: those two are checked on their own (no id; a time next to
the message's neighbours), every other field must be equal.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import html_chats as hc
import pytest
from export_builders import write
from export_html_builder import render_pages, write_html
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.export.html.page import html_text, parse_title_date
from toolkit.ingest.export.report import ImportReport
from toolkit.models import Message, MessageFilter, Source
from toolkit.store import SQLiteStore

_NOT_CARRIED = ("source_id", "sender_peer_id")


def _stored(store: SQLiteStore, report: ImportReport) -> tuple[Source, list[Message]]:
    source = report.sources[0].source
    return source, store.messages_in_period(source.id, MessageFilter(include_service=True))


def _both(
    tmp_path: Path,
    chat: dict[str, Any],
    *,
    ref: str | None,
    per_page: int = 5,
    with_offset: bool = True,
    **options: Any,
) -> tuple[tuple[Source, list[Message]], tuple[Source, list[Message]], ImportReport]:
    json_store = SQLiteStore(tmp_path / "json.sqlite3")
    html_store = SQLiteStore(tmp_path / "html.sqlite3")
    try:
        public = ref if ref is not None and ref.startswith("@") else None
        from_json = import_export(
            json_store, write(tmp_path / "result.json", chat), ref=public, **options
        )
        folder = write_html(tmp_path / "html", chat, per_page=per_page, with_offset=with_offset)
        from_html = import_export(html_store, folder, ref=ref, **options)
        return _stored(json_store, from_json), _stored(html_store, from_html), from_html
    finally:
        json_store.close()
        html_store.close()


def _same_messages(json_messages: list[Message], html_messages: list[Message]) -> None:
    assert [m.messenger_message_id for m in html_messages] == [
        m.messenger_message_id for m in json_messages
    ]
    previous = None
    for j, h in zip(json_messages, html_messages, strict=True):
        skip = set(_NOT_CARRIED) | ({"posted_at"} if j.is_service else set())
        expected = {f.name: getattr(j, f.name) for f in dataclasses.fields(j) if f.name not in skip}
        got = {f.name: getattr(h, f.name) for f in dataclasses.fields(h) if f.name not in skip}
        assert got == expected, j.messenger_message_id
        assert h.sender_peer_id is None
        if j.is_service:  # no time in the HTML: its neighbour's, within the same day
            assert abs(h.posted_at - j.posted_at) < timedelta(hours=24)
            if previous is not None and not previous.is_service:
                assert h.posted_at >= previous.posted_at
        previous = j


def _same_source(json_source: Source, html_source: Source) -> None:
    for name in ("title", "kind", "chat_type", "timezone", "internal_id", "handle"):
        assert getattr(html_source, name) == getattr(json_source, name), name


CHATS: list[tuple[str, Callable[[], dict[str, Any]], str]] = [
    ("group", hc.group, "c/1500000001"),
    ("channel", hc.channel, "c/1600000002"),
    ("personal", hc.personal, "c/2004"),
    ("forum", hc.forum, "c/1800000004"),
]


@pytest.mark.parametrize(("name", "build", "ref"), CHATS, ids=[c[0] for c in CHATS])
def test_html_import_equals_json_import_message_by_message(
    tmp_path: Path, name: str, build: Callable[[], dict[str, Any]], ref: str
) -> None:
    (json_source, json_messages), (html_source, html_messages), report = _both(
        tmp_path, build(), ref=ref
    )
    _same_source(json_source, html_source)
    _same_messages(json_messages, html_messages)
    assert report.total.inserted == len(json_messages)


def test_group_export_quirks_survive_the_round_trip(tmp_path: Path) -> None:
    """Joined messages, a joined run of forwards, replies into earlier pages, reactions
    with counts, userpics and stars, media placeholders, entities and links."""
    chat = hc.group()
    pages = render_pages(chat, per_page=8)
    first = pages[0][1]
    assert 'class="message default clearfix joined" id="message4"' in first
    assert "Not included, change data exporting settings to download." in "".join(
        p for _, p in pages
    )
    assert 'href="messages.html#go_to_message3"' in pages[2][1]  # a reply into page 1
    _, (_, messages), _ = _both(tmp_path, chat, ref="c/1500000001", per_page=8)
    by_id = {m.messenger_message_id: m for m in messages}
    assert by_id[4].sender_name == "Anna Lee"  # joined: no from_name in the HTML
    assert by_id[4].text == "Bring labels,\nplease."
    assert (
        by_id[6].text == "Список тут: таблица (https://example.org/seeds) и https://example.org/map"
    )
    assert by_id[7].reactions == (("👍", 3), ("❤", 1))
    assert (by_id[11].forwarded_from, by_id[12].forwarded_from) == ("Seed Library",) * 2
    assert 'class="message default clearfix joined" id="message12"' in "".join(
        p for _, p in pages
    )  # the second forward of the run shows no origin of its own
    assert by_id[13].text == "[sticker] 🌱"
    assert (by_id[14].media, by_id[14].text) == ("voice_message", "")
    assert by_id[15].text == "[file] planting-plan.pdf"
    assert by_id[16].text == "Which day? — Saturday / Sunday"
    assert by_id[17].text == "[contact] Ірина Коваль"
    assert by_id[18].text == "[venue] Community Garden, 12 Elm Street"
    assert (by_id[19].text, by_id[19].is_service) == ("Anna Lee pinned message 3", True)
    assert (by_id[20].reply_to, by_id[20].sender_name) == (3, "Олег Петренко")
    assert by_id[21].reactions == (("paid", 5), ("🔥", 2))
    assert by_id[22].text == "Anna Lee removed Тарас Шевчук"
    assert by_id[27].text == "Hi, I'm new here. <b>Not bold</b> & fine"


@pytest.mark.parametrize(
    ("offset", "hours"),
    [(timedelta(hours=2), 2), (timedelta(hours=5, minutes=30), 5.5), (timedelta(hours=-8), -8)],
    ids=["+02:00", "+05:30", "-08:00"],
)
def test_times_are_utc_from_the_title_offset(
    tmp_path: Path, offset: timedelta, hours: float
) -> None:
    chat = hc.big(10, offset=offset)
    (json_source, json_messages), (html_source, html_messages), _ = _both(
        tmp_path, chat, ref="c/1900000005"
    )
    assert [m.posted_at for m in html_messages] == [m.posted_at for m in json_messages]
    assert html_source.timezone == json_source.timezone
    title = render_pages(chat)[0][1]
    sign = "-" if hours < 0 else "+"
    whole = abs(hours)
    assert f'UTC{sign}{int(whole):02d}:{int(whole % 1 * 60):02d}"' in title


@pytest.mark.parametrize("zone", [None, "+03:00", "Europe/Kyiv"])
def test_times_without_an_offset_are_read_as_the_json_path_reads_a_lone_date(
    tmp_path: Path, zone: str | None
) -> None:
    (json_source, json_messages), (html_source, html_messages), report = _both(
        tmp_path, hc.old_group(), ref="c/1700000003", with_offset=False, timezone=zone
    )
    _same_source(json_source, html_source)
    _same_messages(json_messages, html_messages)
    line = report.line()
    if zone is None:
        assert "3 messages had no UTC offset in their time and were read as UTC" in line
    else:
        assert "3 messages had no UTC offset in their time: read in" in line


def test_title_dates_with_and_without_offsets() -> None:
    local, offset = parse_title_date("28.06.2019 21:52:20 UTC+03:00") or (None, None)
    assert (local.isoformat() if local else None, offset) == (
        "2019-06-28T21:52:20",
        timedelta(hours=3),
    )
    assert parse_title_date("01.01.2020 00:00:01 UTC-08:00") is not None
    assert parse_title_date("01.01.2020 00:00:01 UTC+05:30")[1] == timedelta(hours=5, minutes=30)  # type: ignore[index]
    assert parse_title_date("01.01.2020 00:00:01")[1] is None  # type: ignore[index]
    assert parse_title_date("yesterday") is None


@given(st.text(alphabet="a \n", max_size=12))
def test_a_text_loses_the_exporters_breaks_around_it_and_nothing_else(text: str) -> None:
    """The first break goes, and ``\\n *$`` at the end (as the reader always did it)."""
    div = etree.fromstring(f'<div class="text">{text}</div>', etree.HTMLParser()).find(".//div")
    inner = div.text or ""
    expected = re.sub(r"\n *$", "", inner[1:] if inner.startswith("\n") else inner)
    assert html_text(div) == expected


def test_any_page_imports_the_whole_chat_and_again_changes_nothing(tmp_path: Path) -> None:
    folder = write_html(tmp_path / "export", hc.big(23), per_page=5)
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        first = import_export(store, folder / "messages3.html")
        assert first.total.inserted == 23
        assert "HTML export, 5 pages" in first.line()
        again = import_export(store, folder)
        assert (again.total.inserted, again.total.unchanged) == (0, 23)
        assert again.sources[0].source.key == first.sources[0].source.key
        assert len(store.list_sources()) == 1
    finally:
        store.close()


def test_html_after_json_with_the_chat_id_lands_on_the_same_source(tmp_path: Path) -> None:
    chat = hc.group()
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        import_export(store, write(tmp_path / "result.json", chat))
        folder = write_html(tmp_path / "html", chat, per_page=7)
        report = import_export(store, folder, ref="c/1500000001")
        assert len(store.list_sources()) == 1
        assert (report.total.inserted, report.total.updated) == (0, 0)
        # The HTML has no sender ids: the stored ones are kept.
        source = report.sources[0].source
        stored = store.messages_in_period(source.id, MessageFilter(include_service=True))
        assert {m.sender_peer_id for m in stored if not m.is_service} >= {"user2001"}
        # The service messages came with their neighbour's time: the stored one is kept.
        assert "came with another posting time than stored" in report.line()
    finally:
        store.close()


def test_a_page_that_is_no_export_is_one_clear_error(tmp_path: Path) -> None:
    page = tmp_path / "messages.html"
    page.write_text("<html><body><p>my notes</p></body></html>", encoding="utf-8")
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        with pytest.raises(ImportFormatError, match="not a page of a Telegram Desktop HTML"):
            import_export(store, page)
        with pytest.raises(InvalidRequest, match=r"holds no messages\.html"):
            import_export(
                store, tmp_path / "empty" if (tmp_path / "empty").mkdir() is None else tmp_path
            )
        assert store.list_sources() == []
    finally:
        store.close()


def test_a_message_without_a_date_is_named_and_the_others_are_stored(tmp_path: Path) -> None:
    folder = write_html(tmp_path / "html", hc.personal())
    page = folder / "messages.html"
    page.write_text(page.read_text(encoding="utf-8").replace('title="', 'data-x="', 1))
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        report = import_export(store, folder)
        imported = report.sources[0]
        assert imported.result.inserted == 4
        assert imported.skipped_by_reason["unreadable block"] == 1
        assert imported.unaccounted == 0
        assert any(
            "messages.html: 1 message block (id 1)" in n and "its date" in n for n in imported.notes
        )
        assert report.warnings()
        assert "1 unreadable block" in report.line()
    finally:
        store.close()


def test_full_account_html_export_reads_each_chat_with_its_listed_type(tmp_path: Path) -> None:
    root = tmp_path / "DataExport"
    write_html(root / "chats" / "chat_001", hc.personal())
    write_html(root / "chats" / "chat_002", hc.channel(), per_page=4)
    (root / "lists").mkdir()
    (root / "lists" / "chats.html").write_text(
        '<div class="entry_list">'
        '<a class="entry block_link clearfix" href="../chats/chat_001/messages.html#allow_back">'
        '<div class="body"><div class="pull_right info details">private</div></div></a>'
        '<a class="entry block_link clearfix" href="../chats/chat_002/messages.html#allow_back">'
        '<div class="body"><div class="pull_right info details">channel</div></div></a></div>',
        encoding="utf-8",
    )
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        report = import_export(store, root)
        kinds = {s.source.title: s.source.chat_type for s in report.sources}
        assert kinds == {"Mike": "personal_chat", "Вести Долины": "private_channel"}
        assert report.total.inserted == 5 + 16
        with pytest.raises(InvalidRequest, match="full-account export"):
            import_export(store, root, ref="@vesti")
    finally:
        store.close()


def test_reactions_are_read_wherever_the_message_block_holds_them(tmp_path: Path) -> None:
    """Exporter versions differ in where ``div.reactions`` sits: in the body, after it,
    or inside the forwarded body; the counts are the same."""
    chat = hc.personal()
    chat["messages"][2]["reactions"] = [{"type": "emoji", "emoji": "😂", "count": 2}]
    folder = write_html(tmp_path / "html", chat)
    page = folder / "messages.html"
    text = page.read_text(encoding="utf-8")
    start = text.index('<div class="reactions">')
    end = text.index("</div>", text.index('class="count"')) + len("</div>")
    block = text[start:end]
    moved = text[:start] + text[end:]
    anchor = moved.index('<div class="text">', moved.index('id="message3"'))
    page.write_text(moved[:anchor] + block + moved[anchor:], encoding="utf-8")
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        report = import_export(store, folder, ref="c/2004")
        source = report.sources[0].source
        (third,) = [m for m in store.messages_in_period(source.id) if m.messenger_message_id == 3]
        assert third.reactions == (("😂", 2),)
        assert third.forwarded_from == "Anna Lee"
    finally:
        store.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("spelling", ['class="reactions"', 'class="&#114;eactions"'])
def test_reactions_nested_where_no_version_puts_them_are_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool, spelling: str
) -> None:
    """A reactions block deep inside a message block (not in its body, not a child) is
    found, however its class is spelled, on a page read whole or streamed; the other
    messages of the page keep theirs."""
    if streamed:
        monkeypatch.setattr("toolkit.ingest.export.html.page.MAX_PAGE_BYTES", 10)
    chat = hc.personal()
    chat["messages"][0]["reactions"] = [{"type": "emoji", "emoji": "👍", "count": 4}]
    folder = write_html(tmp_path / "html", chat)
    page = folder / "messages.html"
    text = page.read_text(encoding="utf-8")
    block = (
        f'<div class="pull_left"><div class="wrap"><div {spelling}><span class="reaction">'
        '<span class="emoji">🎉</span><span class="count">7</span></span></div></div></div>'
    )
    start = text.index('id="message2"')
    at = text.index(">", start) + 1
    page.write_text(text[:at] + block + text[at:], encoding="utf-8")
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        report = import_export(store, folder, ref="c/2004")
        by_id = {
            m.messenger_message_id: m for m in store.messages_in_period(report.sources[0].source.id)
        }
        assert by_id[2].reactions == (("🎉", 7),)
        assert by_id[1].reactions == (("👍", 4),)
        assert by_id[3].reactions == ()
    finally:
        store.close()


def test_a_broken_message_after_nested_reactions_is_named_and_the_rest_read(
    tmp_path: Path,
) -> None:
    """A block that breaks after a message with nested reactions is named; the messages
    around it are stored."""
    folder = write_html(tmp_path / "html", hc.personal())
    page = folder / "messages.html"
    text = page.read_text(encoding="utf-8")
    block = '<div><div class="reactions"><span class="reaction">👍 2</span></div></div>'
    start = text.index('id="message1"')
    at = text.index(">", start) + 1
    text = text[:at] + block + text[at:]
    broken = text.index('title="', text.index('id="message3"'))
    page.write_text(text[:broken] + "data-x" + text[broken + 5 :], encoding="utf-8")
    store = SQLiteStore(tmp_path / "s.sqlite3")
    try:
        report = import_export(store, folder)
        imported = report.sources[0]
        ids = [m.messenger_message_id for m in store.iter_messages(imported.source.id)]
        assert sorted(ids) == [1, 2, 4, 5]
        assert any("(id 3)" in n for n in imported.notes)
    finally:
        store.close()
