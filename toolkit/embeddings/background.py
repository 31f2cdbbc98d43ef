"""``BackgroundEmbedding``: vectors for every stored message, made in a thread while the
service answers.

``mlens serve --demo`` imports the demo without embedding it and answers at once; this
thread then embeds, newest first, **each source's default scan window** (what a
default search reads) and after that **the rest** of every source. Meanwhile a search
embeds nothing itself: it ranks the messages that have a vector as usual and the others
by their lexical signals (``Searcher(embed_missing=...)``), and says how many had one.

It shares two cores with the requests, so it works in small batches (one engine call
each), pauses between them, and waits while a search is computing (``busy``). ``stop``
ends it between two batches; what was embedded is stored, and the next run (or
``mlens index``) goes on from there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any, Literal

from toolkit.embeddings.base import Embedder
from toolkit.embeddings.index import embed_batch, text_batches
from toolkit.errors import ToolkitError
from toolkit.store.base import VectorStore

log = logging.getLogger(__name__)

State = Literal["starting", "embedding", "done", "stopped", "failed"]

CHUNK = 256
"""Messages read from the store at a time (a large source is never loaded whole)."""


@dataclass(frozen=True, slots=True)
class EmbeddingProgress:
    """Where a background embedding stands.

    Attributes:
        state: ``starting`` (loading the model, counting), ``embedding``, ``done``,
            ``stopped`` (the service is shutting down) or ``failed`` (see ``error``).
        embedded: messages this run has embedded so far.
        queued: searchable messages that lacked a vector when it began (known once
            counted; 0 while ``starting``).
        error: why it failed.
    """

    state: State
    embedded: int = 0
    queued: int = 0
    error: str | None = None

    @property
    def running(self) -> bool:
        """Whether it is still at work (searches then embed nothing themselves)."""
        return self.state in ("starting", "embedding")


@dataclass(eq=False)
class BackgroundEmbedding:
    """A daemon thread giving every message of some sources its vector, newest first.

    Args:
        store: where messages are read and vectors written.
        embedder: builds (or returns) the embedder; called in the thread, so loading
            the model does not hold up whoever starts it.
        source_ids: answers the store ids of the sources, in the order to embed them
            (asked in the thread: a store that fails makes the embedding fail, never
            whoever starts it).
        window: per source, how many newest messages come first (the default scan
            window, ``Settings.search.default_scan_messages_limit``).
        batch_size: distinct texts per embedding call (small: a request waits at most
            one call for the cores).
        pause: seconds between two batches, left to the requests.
        busy: while it answers true (a search is computing), no batch starts.
    """

    store: VectorStore
    embedder: Callable[[], Embedder]
    source_ids: Callable[[], Sequence[int]]
    _: KW_ONLY
    window: int
    batch_size: int = 8
    pause: float = 0.02
    busy: Callable[[], bool] | None = None
    _stop: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _progress: EmbeddingProgress = field(default=EmbeddingProgress("starting"), init=False)
    _thread: threading.Thread = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mlens-embedding", daemon=True)

    def start(self) -> BackgroundEmbedding:
        """Start the thread (once); answer self."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask the thread to end after its current batch; wait up to ``timeout`` seconds.

        Returns:
            Whether the thread has ended.
        """
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def progress(self) -> EmbeddingProgress:
        """Where it stands now."""
        with self._lock:
            return self._progress

    @property
    def running(self) -> bool:
        """Whether it is still at work."""
        return self.progress().running

    def _update(self, **fields: Any) -> None:
        with self._lock:
            self._progress = replace(self._progress, **fields)

    def _count(self, embedded: int) -> None:
        with self._lock:
            self._progress = replace(self._progress, embedded=self._progress.embedded + embedded)

    def _run(self) -> None:
        try:
            embedder = self.embedder()
            model = embedder.model_name
            ids = list(self.source_ids())
            queued = sum(self.store.count_without_vectors(s, model) for s in ids)
            self._update(state="embedding", queued=queued)
            for limit in (self.window, None):  # every window first, then the rest
                for source_id in ids:
                    self._embed_source(embedder, source_id, limit)
            self._update(state="stopped" if self._stop.is_set() else "done")
        except Exception as exc:  # the service goes on: searches embed on demand again
            if isinstance(exc, ToolkitError):  # said in one line (a store fault logs itself)
                log.error("background embedding stopped: %s", exc)
            else:
                log.exception("background embedding failed")
            self._update(state="stopped" if self._stop.is_set() else "failed", error=str(exc))

    def _embed_source(self, embedder: Embedder, source_id: int, limit: int | None) -> None:
        left = limit
        while not self._stop.is_set() and (left is None or left > 0):
            chunk = CHUNK if left is None else min(CHUNK, left)
            pending = self.store.messages_without_vectors(
                source_id, embedder.model_name, limit=chunk, newest_first=True
            )
            if not pending:
                return
            for batch in text_batches(pending, self.batch_size):
                if not self._take_turn():
                    return
                embed_batch(self.store, embedder, source_id, batch)
                self._count(len(batch))
            if left is not None:
                left -= len(pending)

    def _take_turn(self) -> bool:
        """Pause, then wait while a search computes; false once asked to stop."""
        if self._stop.wait(self.pause):
            return False
        while self.busy is not None and self.busy():
            if self._stop.wait(0.005):
                return False
        return True
