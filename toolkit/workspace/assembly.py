"""The one assembly of the application: settings, store, embedder, searcher.

Every face reaches data through a ``Workspace``, and every ``Workspace`` through one
``Assembly``: the store is opened here (unless given), the embedder loaded and the
searcher built on first use, once, under a lock (the service asks from many threads).
An embedder is loaded once per process and model, however many workspaces use it (the
app opens one per data folder). Summary engines are the registry's (``toolkit.summarize.registry``),
built once when it is imported; the summary pipeline takes this store and embedder, and
the assembly's ``summary_turns``: summaries of one workspace take turns, as its searches do.
Nothing else in the codebase builds a store, an embedder or a searcher for a face
(``store_at`` opens another store, as ``mlens copy-store`` needs, the same way).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, Unpack

from toolkit.config import Settings
from toolkit.embeddings import Embedder, get_embedder
from toolkit.embeddings.background import BackgroundEmbedding, EmbeddingProgress
from toolkit.models import Source, SourceRef
from toolkit.refs import SourceArg, resolve_source
from toolkit.search.index import shared_index
from toolkit.search.searcher import Searcher
from toolkit.store import MessageStore, open_store, open_store_at
from toolkit.store.backup import BackupReport, backup_store, restore_store
from toolkit.store.base import RateBuckets as RateBuckets  # for faces (service limiters)
from toolkit.store.copy import CopyReport, copy_store
from toolkit.store.folder import guard_data_dir
from toolkit.turns import Turns
from toolkit.weights import SearchWeights, WeightsArg, resolve_weights

Progress = Callable[[int, int], None]
"""``progress(done, total)`` while embedding; the app turns it into a progress bar."""


class Parts(TypedDict, total=False):
    """Parts a ``Workspace`` may be given ready-made; the rest it builds itself.

    Tests and the app share a loaded embedder this way, tests put a fake searcher in.
    """

    store: MessageStore
    embedder: Embedder
    searcher: Searcher


_embedders: dict[tuple[str, str, int], Embedder] = {}
_embedders_lock = threading.Lock()


def shared_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name, loaded once per process (``get_embedder``)."""
    key = (
        settings.embedding.backend,
        settings.embedding.model,
        settings.embedding.query_cache_size,
    )
    with _embedders_lock:
        if key not in _embedders:
            _embedders[key] = get_embedder(settings)
        return _embedders[key]


def store_at(settings: Settings, location: str | None = None) -> MessageStore:
    """Open the store at ``location`` (a ``postgresql://`` URL or an SQLite path) with the
    settings' pool and timeouts; ``None``: the store the settings name (its data folder
    kept private). The caller closes it.

    Raises:
        ConfigError: a URL of another scheme, or psycopg is not installed.
    """
    if location is not None:
        return open_store_at(location, settings)
    if settings.database.path is None and settings.database.url_text is None:
        guard_data_dir(settings.data_dir)  # 0700, and nobody else's to write
    return open_store(settings)


def copy_stores(
    settings: Settings,
    to: str,
    *,
    origin: str | None = None,
    batch_size: int = 2000,
    progress: Callable[[str, int], None] | None = None,
) -> CopyReport:
    """Copy everything of the store at ``origin`` (default: the settings' own) into the
    one at ``to`` (``toolkit.store.copy``); a second run changes nothing.

    Args:
        settings: the pool and timeouts of both stores, and the default origin.
        to, origin: a ``postgresql://`` URL or an SQLite path each.
        batch_size: messages per target transaction.
        progress: ``progress(source key, messages copied)`` after each source.
    """
    source = store_at(settings, origin)
    try:
        target = store_at(settings, to)
        try:
            return copy_store(source, target, batch_size=batch_size, progress=progress)
        finally:
            target.close()
    finally:
        source.close()


class Assembly:
    """Settings, store, embedder and searcher of one data folder, each built once.

    Args:
        settings: the settings (they name the store, the embedder, the weights).
        parts: ready-made parts (``Parts``); a store given here is the caller's to
            close, one opened here is closed by ``close``.
    """

    def __init__(self, settings: Settings, **parts: Unpack[Parts]) -> None:
        self.settings = settings
        self.owns_store = "store" not in parts
        self.store = parts["store"] if "store" in parts else store_at(settings)
        self._embedder = parts.get("embedder")
        self._searcher = parts.get("searcher")
        self._background: BackgroundEmbedding | None = None
        self._lock = threading.RLock()
        # Summaries take turns (``MLENS_SUMMARY_CONCURRENCY``), as searches do in the searcher.
        self.summary_turns = Turns(settings.summary.slots, what="summaries")

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        if self._embedder is None:
            with self._lock:  # re-entrant: building the searcher loads the embedder
                if self._embedder is None:
                    self._embedder = shared_embedder(self.settings)
        return self._embedder

    @property
    def searcher(self) -> Searcher:
        """The searcher over this store and embedder, built once on first use."""
        if self._searcher is None:
            with self._lock:
                if self._searcher is None:
                    self._searcher = self._new_searcher()
        return self._searcher

    def _new_searcher(self) -> Searcher:
        return Searcher(
            self.store,
            self.embedder,
            weights=self.settings.search.weights,
            index=shared_index(self.store, self.settings.search.index_max_messages),
            embed_batch_size=self.settings.embedding.batch_size,
            concurrency=self.settings.search.concurrency,
            max_scan_all=self.settings.search.all_max_scan,
            embed_missing=self._embed_on_search,
            default_limit=self.settings.search.default_limit,
            default_scan=self.settings.search.default_scan_messages_limit,
        )

    def _embed_on_search(self) -> bool:
        """A search embeds what its window lacks, unless a background embedding works."""
        background = self._background
        return background is None or not background.running

    def _searching(self) -> bool:
        turns = getattr(self._searcher, "turns", None)  # a searcher given ready-made may lack it
        return turns is not None and bool(turns.in_use)

    def embed_in_background(self) -> BackgroundEmbedding:
        """Start (unless one is at work) a background embedding of every source
        (``toolkit.embeddings.background``): each default scan window first, then the rest.

        Returns:
            The running embedding (``progress()``, ``stop()``).
        """
        with self._lock:
            if self._background is None or not self._background.running:
                self._background = BackgroundEmbedding(
                    self.store,
                    lambda: self.embedder,
                    lambda: [stats.source.id for stats in self.store.list_sources()],
                    window=self.settings.search.default_scan_messages_limit,
                    busy=self._searching,
                ).start()
            return self._background

    def embedding_progress(self) -> EmbeddingProgress | None:
        """Where the background embedding stands; ``None`` when none was started."""
        background = self._background
        return background.progress() if background is not None else None

    def source(self, ref: SourceArg) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        return resolve_source(self.store, ref)[0]

    def resolve(self, ref: SourceArg) -> tuple[Source, SourceRef]:
        """The source, and the reference to pass on (results echo the caller's text)."""
        return resolve_source(self.store, ref)

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """This call's weights against the settings' (see ``toolkit.weights.WeightsArg``).

        Raises:
            InvalidWeights: a mapping that makes the weights invalid.
        """
        return resolve_weights(weights, self.settings.search.weights)

    def backup(
        self, target: str | Path, *, overwrite: bool = False, progress: Progress | None = None
    ) -> BackupReport:
        """A consistent copy of the live store in the SQLite file ``target``, while
        searches and imports go on (``toolkit.store.backup.backup_store``)."""
        return backup_store(self.store, target, overwrite=overwrite, progress=progress)

    def restore(self, backup: str | Path, *, replace: bool = False) -> CopyReport:
        """Copy a backup file into the store, all of it or nothing; a store that holds
        anything only with ``replace`` (``toolkit.store.backup.restore_store``)."""
        return restore_store(self.store, backup, replace=replace)

    def close(self) -> None:
        """Stop the background embedding, if any; close the store, if this assembly
        opened it."""
        if self._background is not None:
            self._background.stop()
        if self.owns_store:
            self.store.close()
