"""Where an export file broke, said plainly: byte positions, truncation, encoding; and
the bar of bytes read that an import shows (``import_bar``, moved by ``ByteCounter``).

ijson reads the file in ``READ_BYTES`` chunks, so the position it knows is the end of a
chunk; an encoding error is located exactly by ``first_bad_utf8``.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import IO

from tqdm import tqdm

from toolkit.ingest.export.json.stream import Cursor

# Small read buffers keep the byte position in error messages close to the fault.
READ_BYTES = 16 * 1024


def import_bar(path: Path, total: int, *, progress: bool) -> tqdm:
    """The progress bar of an import of ``path``: ``total`` bytes, counted in KiB and MiB;
    hidden unless ``progress``."""
    return tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=f"import {path.name}",
        disable=not progress,
    )


class ByteCounter:
    """A read-only binary file that reports how far it has been read (and moves a bar)."""

    def __init__(self, raw: IO[bytes], bar: tqdm) -> None:
        self._raw = raw
        self._bar = bar
        self.position = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._raw.read(size)
        self.position += len(chunk)
        self._bar.update(len(chunk))
        return chunk


def first_bad_utf8(path: Path, *, chunk: int = 1 << 20) -> tuple[int, int] | None:
    """``(offset, byte)`` of the first byte of ``path`` that is not valid UTF-8, or ``None``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    with path.open("rb") as raw:
        while True:
            data = raw.read(chunk)
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(data, final=not data)
            except UnicodeDecodeError as exc:
                # exc.start counts from the bytes the decoder held back from the last chunk.
                where = offset - pending + exc.start
                return where, (exc.object[exc.start] if exc.start < len(exc.object) else 0)
            if not data:
                return None
            offset += len(data)


def json_error(path: Path, cursor: Cursor, position: int, size: int, exc: Exception) -> str:
    """The message of an ``ImportFormatError`` for a JSON parse error at ``position``."""
    name = path.name
    reason = exc.args[0] if exc.args else exc
    if isinstance(reason, bytes):
        reason = reason.decode("utf-8", "replace")
    reason = str(reason).strip().splitlines()[0] if str(reason).strip() else "invalid JSON"
    if "UTF8" in reason or "UTF-8" in reason:
        bad = first_bad_utf8(path)
        if bad is not None:
            return (
                f"{name} is not UTF-8: byte {bad[0]} (0x{bad[1]:02x}) is invalid, "
                f"{cursor.describe()}; Telegram Desktop writes exports in UTF-8, so the "
                "file was probably re-saved in another encoding"
            )
    if "premature EOF" in reason:
        return f"{name} is truncated: the JSON ends early at byte {size}, {cursor.describe()}"
    if not cursor.export_keys and cursor.chats_seen == 0 and position <= READ_BYTES:
        return (
            f"{name} is not JSON ({reason}); Telegram Desktop's export must be made "
            "in the 'Machine-readable JSON' format"
        )
    return f"{name}: invalid JSON at or before byte {position}, {cursor.describe()}: {reason}"
