"""The data folder and the secrets kept in it, safe from other users of the machine.

The data folder holds the store (private chats) and the development API key. Another
user who can write into it could plant a symbolic link at the key's path and have the
key written wherever the link points, or swap the store. So:

- ``guard_data_dir``: the folder is created 0700 (``private_dir``); an existing one
  that others can write (group or other write bit) is **fixed** when it is ours
  (``chmod go-w``, with one warning in the log) and **refused** with one line
  (``ConfigError``) when it is not ours, or when it has the sticky bit (a shared folder
  such as ``/tmp``: never narrowed behind its owner's back);
- ``write_private``: a new temporary file in the same folder, opened
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` mode 0600 under a random name, written and synced,
  then renamed over the target: a link at the target is replaced, never followed;
- ``read_private``: opened ``O_NOFOLLOW | O_NONBLOCK``; a link, a pipe, a folder or a
  file of another owner at the path is no secret of ours (``None``), never followed
  and never waited on.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import secrets
import stat
from pathlib import Path

from toolkit.errors import ConfigError
from toolkit.store.files import FILE_MODE, private_dir

log = logging.getLogger(__name__)

_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_MAX_SECRET = 4096  # bytes read of a secret file: a key is ~80


def guard_data_dir(path: str | Path) -> Path:
    """Create ``path`` private (0700), or check an existing folder nobody else can write.

    Raises:
        ConfigError: ``path`` is not a folder, or others can write it and it is not
            ours (or it is a shared, sticky folder): one line saying what to do.
    """
    path = private_dir(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"cannot use the data folder {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"cannot use the data folder {path}: it is not a folder")
    mode = stat.S_IMODE(info.st_mode)
    if not mode & _OTHERS_WRITE:
        return path
    if info.st_uid == os.geteuid() and not mode & stat.S_ISVTX:
        os.chmod(path, mode & ~_OTHERS_WRITE)
        log.warning(
            "the data folder %s was writable by others (mode %03o); made it %03o",
            path,
            mode,
            mode & ~_OTHERS_WRITE,
        )
        return path
    whose = "a shared folder" if mode & stat.S_ISVTX else f"owned by uid {info.st_uid}"
    raise ConfigError(
        f"refusing the data folder {path}: others can write it (mode {mode:04o}, {whose}); "
        "point MLENS_DATA_DIR at a folder of your own"
    )


def read_private(path: Path) -> str | None:
    """The text of the secret file ``path``: ``None`` when there is none, or when what is
    there is a link, not a regular file, or not ours (it is replaced, never followed)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.EISDIR, errno.ENXIO):
            return None
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            return None
        data = os.read(fd, _MAX_SECRET)
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, mode 0600, replacing it atomically; never through a link.

    Raises:
        ConfigError: the file cannot be written (a folder in the way, a read-only disk).
    """
    data = text.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(tmp, flags, FILE_MODE)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        try:
            os.fchmod(fd, FILE_MODE)  # the umask narrows os.open's mode; never widen it
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)  # rename: a link at ``path`` is replaced, not followed
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from exc
