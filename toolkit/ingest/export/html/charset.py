"""A page's bytes as UTF-8, whatever charset it was saved in, and what could not be decoded.

Telegram Desktop writes UTF-8 pages (``<meta charset="utf-8"/>``); a page re-saved by an
editor or an old Windows tool may be in cp1251, cp1252, UTF-16 … and libxml2, told UTF-8,
would store its letters as U+FFFD with no word. So a page is decoded before it is parsed:

1. a byte-order mark (or UTF-16/32's NUL pattern) names its encoding;
2. valid UTF-8 is UTF-8 (the usual case: one check, the bytes go on as they are);
3. else a ``<meta charset>`` (or ``http-equiv`` ``content="…; charset=…"``) naming another
   charset;
4. else UTF-8 with a few broken bytes (valid multi-byte UTF-8 sequences outnumber the
   broken ones ten to one in the page's head): a damaged UTF-8 page, not another charset;
5. else charset-normalizer's guess.

A page not in UTF-8 is noted (``Decoding.label``); bytes the chosen charset cannot decode
become U+FFFD and are named (``Decoding.describe``: count, lines, bytes), a warning in the
report. A page over the whole-page bound is decoded as it streams (``Utf8Stream``), its
charset chosen from its first ``HEAD_BYTES``.
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass, field
from typing import IO

import charset_normalizer

from toolkit.ingest.export.encoding import sniff

HEAD_BYTES = 1 << 20
"""Bytes of a streamed page its charset is chosen from (and where ``<meta>`` is looked for)."""
_META_BYTES = 8192
_META = re.compile(
    rb"<meta[^>]+?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE | re.DOTALL
)
_TAGS = re.compile(rb"<[^>]*>")
_SPACES = re.compile(rb"\s+")
_SHOWN = 5
"""Undecodable places a warning names (the rest are counted)."""
_HANDLER = "mlens-html-page"
_local = threading.local()


@dataclass
class Decoding:
    """How one page was decoded, and the bytes that could not be."""

    encoding: str = "utf-8"
    how: str = ""
    """Why that charset (empty: the page is plain UTF-8)."""
    bad: int = 0
    """Undecodable byte sequences, each stored as U+FFFD."""
    places: list[tuple[int, bytes]] = field(default_factory=list)
    """The first ``_SHOWN`` of them: (line, bytes)."""
    _lines: int = 0
    """Lines of the page before the bytes being decoded (a streamed page's)."""

    @property
    def label(self) -> str | None:
        """``windows-1251 (by its <meta charset>)``; ``None`` for a plain UTF-8 page."""
        return f"{self.encoding} ({self.how})" if self.how else None

    def describe(self) -> str | None:
        """``3 byte sequences not valid windows-1251 … at line 4 (0x98), …``; ``None``:
        every byte was decoded."""
        if not self.bad:
            return None
        shown = ", ".join(f"line {line} ({_hex(chunk)})" for line, chunk in self.places)
        more = f" and {self.bad - len(self.places)} more" if self.bad > len(self.places) else ""
        noun = "byte sequence" if self.bad == 1 else "byte sequences"
        return f"{self.bad} {noun} not valid {self.encoding}, stored as U+FFFD: at {shown}{more}"

    def _record(self, exc: UnicodeDecodeError) -> tuple[str, int]:
        self.bad += 1
        if len(self.places) < _SHOWN:
            line = self._lines + exc.object.count(b"\n", 0, exc.start) + 1
            self.places.append((line, bytes(exc.object[exc.start : exc.end])))
        return "\ufffd", exc.end


def _hex(chunk: bytes) -> str:
    return " ".join(f"0x{b:02x}" for b in chunk)


def _handler(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return _local.decoding._record(exc)  # type: ignore[no-any-return]


codecs.register_error(_HANDLER, _handler)


def _decode(data: bytes, decoding: Decoding) -> str:
    """``data`` in ``decoding.encoding``, each undecodable sequence recorded."""
    _local.decoding = decoding
    try:
        return data.decode(decoding.encoding, errors=_HANDLER)
    finally:
        _local.decoding = None


def _declared(head: bytes) -> str | None:
    """The charset a ``<meta>`` of the page's head names, when Python knows it."""
    match = _META.search(head[:_META_BYTES])
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii")).name
    except (LookupError, UnicodeDecodeError):
        return None


def _damaged_utf8(head: bytes) -> bool:
    """Whether ``head`` reads as UTF-8 with a few broken bytes rather than another charset."""
    probe = Decoding()
    text = _decode(head, probe)
    valid = len(text) - len(text.encode("ascii", "ignore")) - probe.bad
    return valid >= 10 * probe.bad


def choose(head: bytes, *, whole: bool) -> Decoding:
    """The charset of a page whose bytes begin with ``head`` (all of them when ``whole``)."""
    encoding, bom = sniff(head[:4])
    if encoding != "UTF-8":
        how = "by its byte-order mark" if bom else "by the NUL bytes around its first letters"
        return Decoding(codecs.lookup(encoding).name, how)
    sample = head if whole else _cut(head)
    try:
        sample.decode("utf-8")
        return Decoding()  # a UTF-8 byte-order mark is UTF-8 to libxml2 too
    except UnicodeDecodeError:
        pass
    declared = _declared(head)
    if declared is not None and declared != "utf-8":
        return Decoding(declared, "by its <meta charset>")  # its bytes it cannot decode: named
    if _damaged_utf8(sample[:65536]):
        return Decoding()
    # Markup is ASCII and misleads the guess (cp1251 letters read as box drawing): the
    # page's text alone is what tells one charset from another.
    letters = _SPACES.sub(b" ", _TAGS.sub(b" ", sample))
    guess = charset_normalizer.from_bytes(letters if len(letters) > 64 else sample).best()
    if guess is not None and guess.encoding and codecs.lookup(guess.encoding).name != "utf-8":
        return Decoding(codecs.lookup(guess.encoding).name, "guessed by charset-normalizer")
    return Decoding()


def _cut(head: bytes) -> bytes:
    """``head`` without a multi-byte UTF-8 sequence cut at its end."""
    end = len(head)
    for back in range(1, min(4, end) + 1):
        byte = head[end - back]
        if byte < 0x80:
            return head
        if byte >= 0xC0:
            return head[: end - back]
    return head


def page_utf8(data: bytes) -> tuple[bytes, Decoding]:
    """A whole page's bytes as UTF-8, and how they were decoded."""
    try:
        data.decode("utf-8")  # the usual case: nothing to do
        return data, Decoding()
    except UnicodeDecodeError:
        pass
    decoding = choose(data, whole=True)
    return _decode(data, decoding).encode("utf-8"), decoding


class Utf8Stream:
    """A streamed page's bytes as UTF-8 (``read``), its charset chosen from its head."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        head = raw.read(HEAD_BYTES)
        self.decoding = choose(head, whole=len(head) < HEAD_BYTES)
        self._decoder = codecs.getincrementaldecoder(self.decoding.encoding)(errors=_HANDLER)
        self._pending = head

    def read(self, size: int = -1, /) -> bytes:
        """Up to about ``size`` bytes of UTF-8 (``b""`` at the end)."""
        while True:
            chunk, self._pending = self._pending or self._raw.read(size), b""
            _local.decoding = self.decoding
            try:
                text = self._decoder.decode(chunk, final=not chunk)
            finally:
                _local.decoding = None
            self.decoding._lines += chunk.count(b"\n")
            if text or not chunk:
                return text.encode("utf-8")
