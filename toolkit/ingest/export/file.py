"""Open an export for reading: a regular file, or one clear line at once.

A named pipe would block ``open`` until a writer came (forever, for ``mlens import``),
a device could stream without end or act on being opened, and a folder is no export.
The path is checked with ``os.stat`` first, then opened ``O_NONBLOCK`` (so that a pipe
put in its place meanwhile cannot block either) and checked again on the open
descriptor, which is what is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from toolkit.errors import InvalidRequest

_KINDS = [
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refuse(path: Path, mode: int) -> InvalidRequest:
    return InvalidRequest(
        f"cannot import {path}: it is {_kind(mode)}, not a file; give the export's result.json",
        field="path",
    )


def open_export(path: Path) -> tuple[BinaryIO, int]:
    """The export file at ``path`` opened for binary reading, and its size in bytes.

    Raises:
        InvalidRequest: ``path`` is missing or unreadable, or is a folder, a named pipe,
            a device or a socket (``field="path"``), said at once, without waiting.
    """
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise _refuse(path, before.st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InvalidRequest(f"cannot read {path}: {exc.strerror or exc}", field="path") from exc
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise _refuse(path, opened.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), opened.st_size
    except BaseException:
        os.close(fd)
        raise
