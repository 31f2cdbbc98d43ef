"""HTML pages in another charset than UTF-8: decoded by their ``<meta charset>`` or by
charset-normalizer's guess, the report says how; bytes that cannot be decoded are named
(a warning), never turned into U+FFFD in silence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import html_chats as hc
import pytest
from export_html_builder import render_pages, write_html

from toolkit.ingest import import_export
from toolkit.ingest.export.html.charset import Utf8Stream, choose, page_utf8
from toolkit.ingest.export.report import ImportReport
from toolkit.models import MessageFilter
from toolkit.store import SQLiteStore

UTF8_META = '<meta charset="utf-8"/>'


def _russian(count: int = 40) -> dict[str, Any]:
    """A chat whose every letter cp1251 can write (no emoji, no Ukrainian ї/є)."""
    c = hc.Chat("Дачный кооператив", "private_supergroup", 1_960_000_007, timedelta(hours=3))
    texts = [
        "Завтра привезут саженцы, кто возьмёт {n}?",
        "Я возьму, только после обеда — «в два».",
        "Meeting at the gate, row {n}.",
    ]
    for n in range(count):
        who = (hc.OLEG, hc.ANNA, hc.MIKE)[n % 3]
        c.say(n * 2, who, texts[n % 3].format(n=n))
    return c.data


def _write(folder: Path, chat: dict[str, Any], encode: Any, per_page: int = 15) -> Path:
    folder.mkdir(parents=True)
    for name, page in render_pages(chat, per_page=per_page):
        (folder / name).write_bytes(encode(page))
    return folder


def _texts(tmp_path: Path, folder: Path, name: str) -> tuple[ImportReport, list[str]]:
    store = SQLiteStore(tmp_path / f"{name}.sqlite3")
    try:
        report = import_export(store, folder)
        sid = report.sources[0].source.id
        return report, [m.text for m in store.messages_in_period(sid, MessageFilter())]
    finally:
        store.close()


@pytest.fixture(params=["whole", "streamed"])
def reading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Pages read whole, then streamed (every page over the size read whole)."""
    if request.param == "streamed":
        monkeypatch.setattr("toolkit.ingest.export.html.page.MAX_PAGE_BYTES", 10)
    return str(request.param)


@pytest.fixture
def utf8_texts(tmp_path: Path) -> list[str]:
    _, texts = _texts(tmp_path, write_html(tmp_path / "utf8", _russian(), per_page=15), "u")
    assert any("саженцы" in t for t in texts)
    return texts


def test_a_cp1251_page_is_decoded_by_its_meta_charset(
    tmp_path: Path, utf8_texts: list[str], reading: str
) -> None:
    folder = _write(
        tmp_path / "cp1251",
        _russian(),
        lambda page: page.replace(UTF8_META, '<meta charset="windows-1251"/>').encode("cp1251"),
    )
    report, texts = _texts(tmp_path, folder, "c")
    assert texts == utf8_texts
    assert "\ufffd" not in "".join(texts)
    assert report.sources[0].source.title == "Дачный кооператив"
    line = report.line()
    assert "messages.html, messages2.html, messages3.html not in UTF-8: decoded as cp1251 " in line
    assert "(by its <meta charset>)" in line
    assert report.warnings() == []


@pytest.mark.parametrize(
    ("encode", "how"),
    [
        (lambda page: page.encode("cp1251"), "decoded as cp1251 (guessed by charset-normalizer)"),
        (lambda page: page.encode("utf-16"), "(by its byte-order mark)"),
    ],
    ids=["cp1251-that-still-says-utf8", "utf16"],
)
def test_a_page_without_a_true_meta_charset_is_decoded_by_a_guess_or_its_bom(
    tmp_path: Path, utf8_texts: list[str], encode: Callable[[str], bytes], how: str
) -> None:
    folder = _write(tmp_path / "pages", _russian(), encode)
    report, texts = _texts(tmp_path, folder, "p")
    assert texts == utf8_texts
    assert how in report.line()
    assert report.warnings() == []


def test_undecodable_bytes_are_named_never_replaced_in_silence(
    tmp_path: Path, utf8_texts: list[str], reading: str
) -> None:
    folder = _write(tmp_path / "broken", _russian(), lambda page: page.encode("utf-8"))
    page = folder / "messages.html"
    data = page.read_bytes()
    assert "возьмёт 3?".encode() in data
    page.write_bytes(data.replace("возьмёт 3?".encode(), "возьмёт ".encode() + b"\xff\xfe3?", 1))
    line = 1 + page.read_bytes()[: page.read_bytes().index(b"\xff")].count(b"\n")
    report, texts = _texts(tmp_path, folder, "b")
    assert [t.replace("\ufffd\ufffd", "") for t in texts] == utf8_texts
    assert sum(t.count("\ufffd") for t in texts) == 2
    (warning,) = report.warnings()
    assert "messages.html: 2 byte sequences not valid utf-8, stored as U+FFFD" in warning
    assert f"at line {line} (0xff), line {line} (0xfe)" in warning
    assert "not in UTF-8" not in report.line()  # a damaged UTF-8 page, not another charset


def test_choose_on_heads() -> None:
    words = "Утром привезли доски, вечером начали строить сарай у дальнего забора. "
    page = "<html><head><title>x</title></head><body>" + words * 50 + "</body>"
    assert choose(page.encode(), whole=True).label is None
    cp = page.encode("cp1251")
    assert choose(cp, whole=True).encoding == "cp1251"
    http_equiv = b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
    koi = http_equiv + page.encode("koi8_r")
    assert choose(koi, whole=True).encoding == "koi8-r"
    assert page_utf8(koi)[0].decode("utf-8").endswith("забора. </body>")
    cut = page.encode()[:1001]  # a streamed head cut inside a letter is still UTF-8
    assert choose(cut, whole=False).label is None


def test_a_stream_names_the_line_of_a_bad_byte_past_its_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    monkeypatch.setattr("toolkit.ingest.export.html.charset.HEAD_BYTES", 64)
    data = ("строка\n" * 40).encode() + b"\x80 here\n" + ("ещё\n" * 3).encode()
    stream = Utf8Stream(io.BytesIO(data))
    out = b""
    while chunk := stream.read(50):
        out += chunk
    assert out.decode() == ("строка\n" * 40) + "\ufffd here\n" + "ещё\n" * 3
    assert stream.decoding.describe() == (
        "1 byte sequence not valid utf-8, stored as U+FFFD: at line 41 (0x80)"
    )
