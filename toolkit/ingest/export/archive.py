"""A ``.zip`` of a Telegram Desktop export, read in place (no unpacking by hand).

The archive is checked whole before anything is read: its members must stay inside it
(no absolute path, no ``..``), be no symbolic links, not be encrypted, have a name no
other member has (``a/messages.html`` twice, or as ``a//messages.html``: which one is
the export's cannot be told, and a dict keeps the last in silence), each unpack to at
most ``MAX_MEMBER_BYTES`` compressed at most ``MAX_RATIO`` to one, and all add up to at
most ``MAX_INFLATION`` times the archive's size (and ``MAX_TOTAL_BYTES``): a zip bomb,
one big member or thousands of small ones, is refused before one byte is inflated.
Python's ``zipfile`` stops each member at the size its header declares and checks its
CRC, so a header that lies cannot inflate more than was checked. Each refusal is one
``InvalidRequest`` line naming the member. The archive itself must be a regular file
(``open_export``): a named pipe called ``x.zip`` is refused at once, never waited on.

Members are then streamed (``ZipFile.open``): a JSON export's ``result.json``, or an HTML
export's ``messages*.html`` pages (one chat's folder, or every ``chats/chat_NNN/`` of a
full-account export).
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest.export.file import open_export

MAX_TOTAL_BYTES = 16 * 1024**3
"""Unpacked bytes of all members together: 16 GiB (the largest exports are a few GB)."""
MAX_MEMBER_BYTES = 8 * 1024**3
"""Unpacked bytes of one member (an account's ``result.json`` is the largest)."""
MAX_INFLATION = 40
"""All members together unpack to at most this many times the archive's size (plus
``INFLATION_FLOOR``): an export's text compresses about 5–20 to one, its photos not at
all. The per-member ratio alone lets thousands of small members pass (3.4 MB → 3 GiB)."""
INFLATION_FLOOR = 64 * 1024 * 1024
"""Unpacked bytes any archive may hold, however small (a tiny export, its CSS)."""
MAX_RATIO = 200
"""Unpacked to packed size of one member; HTML and JSON compress about 5–20 to one."""
MAX_MEMBERS = 1_000_000
_RATIO_FLOOR = 1024 * 1024  # members this small may compress better (empty pages, CSS)


def _refuse(path: Path, reason: str) -> InvalidRequest:
    return InvalidRequest(
        f"cannot import {path.name}: {reason}; nothing was imported", field="path"
    )


def check_archive(path: Path, archive: zipfile.ZipFile, size: int) -> list[zipfile.ZipInfo]:
    """The archive's members once each is known safe to read (``size``: the archive's
    bytes).

    Raises:
        InvalidRequest: a member outside the archive, a symbolic link, an encrypted
            member, two members of one name, a compression ratio, a member's size or
            the total size beyond the limits.
    """
    members = archive.infolist()
    bound = MAX_INFLATION * size + INFLATION_FLOOR
    if len(members) > MAX_MEMBERS:
        raise _refuse(path, f"the archive holds more than {MAX_MEMBERS:,} files")
    total = 0
    names: set[PurePosixPath] = set()
    for info in members:
        name = info.filename
        pure = PurePosixPath(name.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
            raise _refuse(path, f"the member {name!r} points outside the archive")
        if not info.is_dir():
            if pure in names:  # which of the two is the export's is anyone's guess
                raise _refuse(path, f"it holds two members named {str(pure)!r}")
            names.add(pure)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise _refuse(path, f"the member {name!r} is a symbolic link")
        if info.flag_bits & 0x1:
            raise _refuse(path, f"the member {name!r} is encrypted")
        if info.file_size > MAX_MEMBER_BYTES:
            raise _refuse(
                path,
                f"the member {name!r} unpacks to more than {MAX_MEMBER_BYTES // 1024**3} GiB",
            )
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise _refuse(
                path, f"it unpacks to more than {MAX_TOTAL_BYTES // 1024**3} GiB (a zip bomb?)"
            )
        if total > bound:
            raise _refuse(
                path,
                f"its members unpack to more than {bound // 1024**2:,} MiB, over "
                f"{MAX_INFLATION} times its {size / 1024**2:.1f} MiB (a zip bomb?)",
            )
        if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * max(
            info.compress_size, 1
        ):
            raise _refuse(
                path,
                f"the member {name!r} unpacks {info.file_size // max(info.compress_size, 1):,} "
                f"times its packed size (more than {MAX_RATIO}: a zip bomb?)",
            )
    return members


class _OwnZip(zipfile.ZipFile):
    """A ``ZipFile`` over a file it was given, which it closes with itself."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        super().__init__(raw)

    def close(self) -> None:
        """Close the archive, then its file."""
        try:
            super().close()
        finally:
            self._raw.close()


def open_archive(path: Path) -> zipfile.ZipFile:
    """The archive at ``path`` opened and checked (``check_archive``).

    Raises:
        ImportFormatError: the file is no zip archive, or a broken one.
        InvalidRequest: an unsafe archive (``check_archive``); a path that is no
            regular file (a named pipe, a device, a folder: ``open_export``).
    """
    raw, size = open_export(path)
    try:
        archive = _OwnZip(raw)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError) as exc:
        raw.close()
        raise ImportFormatError(f"{path.name} is not a readable zip archive: {exc}") from None
    except OSError as exc:
        raw.close()
        raise InvalidRequest(f"cannot read {path}: {exc.strerror or exc}", field="path") from exc
    try:
        check_archive(path, archive, size)
    except BaseException:
        archive.close()
        raise
    return archive


def is_archive(path: Path) -> bool:
    """Whether ``path`` names a zip archive (by its name or its first bytes)."""
    if path.suffix.lower() == ".zip":
        return True
    try:
        return path.is_file() and zipfile.is_zipfile(path)
    except OSError:
        return False
