"""Hybrid search: four signals (``signals``), their fusion (``scorer``), the window and
its context (``searcher``); the tunable weights are ``toolkit.weights.SearchWeights``."""

from toolkit.search.searcher import Searcher

__all__ = ["Searcher"]
