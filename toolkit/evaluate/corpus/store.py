"""A cached real export, imported once into its own SQLite store, read by window.

Each source of ``sources.SOURCES`` is imported through the project's own importer
(``toolkit.ingest.import_export``) into ``<cache>/.stores/<key>.sqlite3``; the store is
made again when an export file is newer than it (or with ``refresh=True``). A window is
a source key and an inclusive range of message ids (``key:first-last``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolkit.evaluate.corpus.sources import BY_KEY, RealSource, cache_root, is_cached, source_dir
from toolkit.ingest import import_export
from toolkit.models import Message, Source
from toolkit.store import SQLiteStore

_BLOCK = re.compile(rb'class="message (?:default|service)')


class CorpusMissing(LookupError):
    """The cache has no copy of a source: the one line saying so is the message."""


@dataclass(frozen=True, slots=True)
class Window:
    """An inclusive range of message ids in one source."""

    source: str
    first_id: int
    last_id: int

    @classmethod
    def parse(cls, spec: str) -> Window:
        """``key:first-last`` (``blitz:1234-1290``) as a window.

        Raises:
            ValueError: not of that form, or an unknown source key.
        """
        match = re.fullmatch(r"([a-z0-9_]+):(-?\d+)-(-?\d+)", spec.strip())
        if match is None:
            raise ValueError(f"not a window (key:first-last): {spec!r}")
        key, first, last = match.group(1), int(match.group(2)), int(match.group(3))
        if key not in BY_KEY:
            raise ValueError(f"unknown source {key!r}; known: {', '.join(BY_KEY)}")
        if last < first:
            raise ValueError(f"the window ends before it starts: {spec!r}")
        return cls(key, first, last)


def store_path(key: str, root: Path | None = None) -> Path:
    """Where the store of source ``key`` is kept in the cache."""
    return (root if root is not None else cache_root()) / ".stores" / f"{key}.sqlite3"


def export_path(source: RealSource, root: Path | None = None) -> Path:
    """What ``import_export`` reads for ``source``: its folder, or its ``result.json``."""
    folder = source_dir(source.key, root)
    return folder / "result.json" if source.format == "json" else folder


def _stale(source: RealSource, db: Path, root: Path | None) -> bool:
    if not db.is_file():
        return True
    built = db.stat().st_mtime
    folder = source_dir(source.key, root)
    return any((folder / source.cached_name(p)).stat().st_mtime > built for p in source.paths)


def build_store(source: RealSource, root: Path | None = None) -> Path:
    """Import ``source``'s cached export into a fresh store (replacing an older one).

    Raises:
        CorpusMissing: the export is not in the cache.
    """
    if not is_cached(source, root):
        raise CorpusMissing(missing_line(source.key, root))
    db = store_path(source.key, root)
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(db.name + ".part")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    store = SQLiteStore(tmp)
    try:
        import_export(store, export_path(source, root))
    finally:
        store.close()
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    tmp.replace(db)
    return db


def missing_line(key: str, root: Path | None = None) -> str:
    """The one line saying a source is not cached, and how to fetch it."""
    where = source_dir(key, root)
    return f"real corpus: {key} is not cached at {where} (python scripts/real_corpus.py fetch)"


@contextlib.contextmanager
def opened(
    key: str, root: Path | None = None, *, refresh: bool = False
) -> Iterator[tuple[SQLiteStore, Source]]:
    """The store of source ``key`` and its one imported source, imported first if need be.

    Raises:
        CorpusMissing: the source is not cached.
        KeyError: an unknown source key.
    """
    source = BY_KEY[key]
    db = store_path(key, root)
    if not is_cached(source, root):
        raise CorpusMissing(missing_line(key, root))
    if refresh or _stale(source, db, root):
        build_store(source, root)
    store = SQLiteStore(db)
    try:
        stats = store.list_sources()
        if len(stats) != 1:
            raise CorpusMissing(f"real corpus: {db} holds {len(stats)} sources, not one")
        yield store, stats[0].source
    finally:
        store.close()


def window_messages(window: Window, root: Path | None = None) -> list[Message]:
    """The messages of ``window`` (service messages included), in posting order.

    Raises:
        CorpusMissing: the source is not cached.
    """
    with opened(window.source, root) as (store, source):
        ids = range(window.first_id, window.last_id + 1)
        return store.get_messages(source.id, list(ids))


def source_timezone(key: str, root: Path | None = None) -> str | None:
    """The time zone the import recorded for source ``key`` (``None``: UTC)."""
    with opened(key, root) as (_, source):
        return source.timezone


def counts(source: RealSource, root: Path | None = None) -> tuple[int, int | None]:
    """How many messages the store holds for ``source`` and, for an HTML export, how
    many ``class="message …"`` blocks its pages have (``None`` for JSON)."""
    with opened(source.key, root) as (store, imported):
        stored = sum(1 for _ in store.iter_messages(imported.id))
    if source.format != "html":
        return stored, None
    folder = source_dir(source.key, root)
    blocks = sum(
        len(_BLOCK.findall((folder / source.cached_name(p)).read_bytes())) for p in source.paths
    )
    return stored, blocks
