"""The encoding of an export file: UTF-8 as Telegram Desktop writes it, or a re-saved copy.

An editor or a Windows tool that re-saves ``result.json`` may add a byte-order mark
(UTF-8 with BOM) or write UTF-16/UTF-32 (with or without one). JSON's own rule
(RFC 8259 §8.1, RFC 4627 §3) tells them apart from the first four bytes: a BOM names
the encoding; without one, the NUL bytes around the first ASCII character do. The
parser reads UTF-8 only, so ``decoded`` gives it a UTF-8 view of any of them, streamed
(memory stays flat), and says which encoding it found for the import report.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from toolkit.ingest.export.limits import Readable

# Longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32-LE"),
    (codecs.BOM_UTF32_BE, "UTF-32-BE"),
    (codecs.BOM_UTF8, "UTF-8"),
    (codecs.BOM_UTF16_LE, "UTF-16-LE"),
    (codecs.BOM_UTF16_BE, "UTF-16-BE"),
)


def sniff(head: bytes) -> tuple[str, int]:
    """``(encoding, length of its byte-order mark)`` of a JSON text starting with ``head``
    (its first four bytes, fewer for a shorter file)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, len(bom)
    if len(head) >= 4 and head[:3] == b"\0\0\0" and head[3]:
        return "UTF-32-BE", 0
    if len(head) >= 4 and head[0] and head[1:4] == b"\0\0\0":
        return "UTF-32-LE", 0
    if len(head) >= 2 and not head[0] and head[1]:
        return "UTF-16-BE", 0
    if len(head) >= 2 and head[0] and not head[1]:
        return "UTF-16-LE", 0
    return "UTF-8", 0


@dataclass
class Decoded:
    """A UTF-8 view of an export in any encoding ``sniff`` names (``read`` as a file's)."""

    raw: Readable
    encoding: str
    bom: bool
    _pending: bytes = b""

    def __post_init__(self) -> None:
        self._decoder = (
            None
            if self.encoding == "UTF-8"
            # A lone surrogate half becomes U+FFFD, as import cleaning does for text.
            else codecs.getincrementaldecoder(self.encoding)(errors="replace")
        )

    @property
    def note(self) -> str | None:
        """The report's line about the encoding; ``None`` for plain UTF-8."""
        if self.encoding == "UTF-8" and not self.bom:
            return None
        how = " with a byte-order mark" if self.bom else ""
        return (
            f"the file is {self.encoding}{how}, not the UTF-8 Telegram Desktop writes "
            "(re-saved by another program?): decoded as such"
        )

    def read(self, size: int = -1, /) -> bytes:
        """Up to about ``size`` bytes of UTF-8 (``b""`` at the end)."""
        if size == 0:  # ijson probes with read(0): bytes or text?
            return b""
        while True:
            chunk, self._pending = self._pending or self.raw.read(size), b""
            if self._decoder is None:
                return chunk
            text = self._decoder.decode(chunk, final=not chunk)
            if text or not chunk:
                return text.encode("utf-8")


def decoded(raw: Readable) -> Decoded:
    """``raw`` (an export opened in binary) as UTF-8, whatever JSON encoding it is in."""
    head = b""
    while len(head) < 4 and (more := raw.read(4 - len(head))):
        head += more
    encoding, bom = sniff(head)
    return Decoded(raw, encoding, bool(bom), head[bom:])
