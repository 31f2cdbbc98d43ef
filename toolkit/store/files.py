"""Private files: a store's folder is 0700 and its files 0600 when the toolkit creates them.

An imported chat is as private as the chat itself, so nobody else on the machine may
read it. SQLite gives the ``-wal`` and ``-shm`` files the mode of the database file,
so creating the database file 0600 before SQLite opens it covers all three.
"""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | Path) -> Path:
    """Create ``path`` (and missing parents) mode 0700; an existing folder is left alone."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        # mkdir's mode is filtered by the umask; a permissive umask must not widen it.
        os.chmod(folder, DIR_MODE)
    return path


def private_file(path: str | Path) -> Path:
    """Create ``path`` empty with mode 0600 unless it exists (its folder via ``private_dir``)."""
    path = Path(path)
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return path
    os.close(fd)
    os.chmod(path, FILE_MODE)
    return path
