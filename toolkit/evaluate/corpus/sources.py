"""The real Telegram exports of the development corpus: where each one comes from.

Each source (a line of ``data/real_sources.jsonl``) is a public repository holding a
Telegram Desktop export, pinned to a commit, with the paths of its export files
(``scripts/real_corpus.py fetch`` copies them into the cache, never into this
repository). ``held_out`` sources are never labelled for training: a person reads their
digests last. The list and what each chat is about: ``../shared/data/real_exports.md``
(the row number is ``row``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any


@dataclass(frozen=True, slots=True)
class RealSource:
    """One real export: a short key, where it is, and what kind of chat it is."""

    key: str
    row: int
    repo: str
    commit: str
    paths: tuple[str, ...]
    format: str  # "html" or "json"
    kind: str  # group, supergroup, forum, channel, personal
    language: str
    held_out: bool = False

    def cached_name(self, path: str) -> str:
        """The file name ``path`` is cached as: its own, except that an ``index.html``
        (a renamed first page) is ``messages.html`` again."""
        name = PurePosixPath(path).name
        return "messages.html" if name == "index.html" else name


SOURCES_FILE = Path(__file__).resolve().parents[1] / "data" / "real_sources.jsonl"
"""The sources, a JSON object a line: ``RealSource``'s fields, with ``pages`` (an HTML
export's pages, ``_pages``) in place of ``paths`` where the export is paged."""


def _pages(
    folder: str, last: int, *, index: bool = False, left_out: Collection[str] = ()
) -> tuple[str, ...]:
    """An HTML export's pages ``messages.html`` … ``messages<last>.html`` in ``folder``
    (the first one an ``index.html`` with ``index``), but for those ``left_out`` (pages an
    owner emptied at the pinned commit)."""
    prefix = f"{folder}/" if folder else ""
    first = f"{prefix}index.html" if index else f"{prefix}messages.html"
    pages = (first, *(f"{prefix}messages{n}.html" for n in range(2, last + 1)))
    return tuple(page for page in pages if page not in left_out)


def _source(row: dict[str, Any]) -> RealSource:
    """A line of ``SOURCES_FILE`` as a ``RealSource``."""
    pages = row.pop("pages", None)
    paths = _pages(**pages) if pages is not None else tuple(row.pop("paths"))
    return RealSource(paths=paths, **row)


SOURCES: tuple[RealSource, ...] = tuple(
    _source(json.loads(line))
    for line in SOURCES_FILE.read_text(encoding="utf-8").splitlines()
    if line.strip()
)
"""Every source of the corpus, by the row order of ``real_exports.md``."""

BY_KEY: dict[str, RealSource] = {s.key: s for s in SOURCES}
"""The sources by key."""


def cache_root() -> Path:
    """The cache folder: ``$MLENS_REAL_CACHE``, else ``~/.cache/mlens/real_exports``."""
    configured = os.environ.get("MLENS_REAL_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "mlens" / "real_exports"


def source_dir(key: str, root: Path | None = None) -> Path:
    """The folder a source's files are cached in."""
    return (root if root is not None else cache_root()) / key


def is_cached(source: RealSource, root: Path | None = None) -> bool:
    """Whether every file of ``source`` is in the cache."""
    folder = source_dir(source.key, root)
    return all((folder / source.cached_name(p)).is_file() for p in source.paths)
