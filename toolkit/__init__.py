"""Message Lens toolkit: store, ingest, search and summaries of messaging-platform sources.

``Workspace`` is the application: one per data folder and process, it holds the
settings, the store, the embedder and the searcher, and answers domain objects
(``toolkit.models``); a search or a summary is one request object (``toolkit.requests``).
``Lab`` wraps it for notebooks, answering tables and HTML views::

    from toolkit import Lab, Workspace
    ws = Lab(Workspace.open("data"))     # Settings, store and (lazily) the embedder
    ws.load_demo()                       # or ws.import_export("result.json", ref="@handle")
    ws.sources()                         # tables: .to_pandas(), .to_polars(), HTML in Jupyter
    ws.search("@mlens_demo_en", "what is your favourite movie", limit=5)
    ws.summarize_period("@mlens_demo_en", "2026-10-20", "2026-10-27", language="en")

``import toolkit`` loads nothing but this file: each public name is imported on first
use (PEP 562), so ``import toolkit.errors`` or ``toolkit.config`` costs no model, no
scikit-learn and no HTTP client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.notebook import HitList, Lab, SummaryView, Table
    from toolkit.requests import (
        SearchAllRequest,
        SearchRequest,
        SourceSummaryRequest,
        SummaryRequest,
    )
    from toolkit.weights import SearchWeights
    from toolkit.workspace import Workspace


_HOMES = {
    "HitList": "toolkit.notebook",
    "Lab": "toolkit.notebook",
    "SearchAllRequest": "toolkit.requests",
    "SearchRequest": "toolkit.requests",
    "SearchWeights": "toolkit.weights",
    "Settings": "toolkit.config",
    "SourceSummaryRequest": "toolkit.requests",
    "SummaryRequest": "toolkit.requests",
    "SummaryView": "toolkit.notebook",
    "Table": "toolkit.notebook",
    "Workspace": "toolkit.workspace",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__all__ = [
    "HitList",
    "Lab",
    "SearchAllRequest",
    "SearchRequest",
    "SearchWeights",
    "Settings",
    "SourceSummaryRequest",
    "SummaryRequest",
    "SummaryView",
    "Table",
    "Workspace",
]
