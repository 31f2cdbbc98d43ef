"""Hybrid search: four signals (``signals``), their fusion (``scorer``), the window and
its context (``searcher``), tunable ``SearchWeights`` (``weights``).

``Searcher`` and ``search`` are imported lazily so that ``toolkit.config`` (which needs
``SearchWeights``) stays light and free of import cycles.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolkit.search.weights import SearchWeights

if TYPE_CHECKING:
    from toolkit.search.searcher import Searcher, search

__all__ = ["SearchWeights", "Searcher", "search"]


def __getattr__(name: str) -> Any:
    if name in {"Searcher", "search"}:
        return getattr(importlib.import_module("toolkit.search.searcher"), name)
    raise AttributeError(f"module 'toolkit.search' has no attribute {name!r}")
