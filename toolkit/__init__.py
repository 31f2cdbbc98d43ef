"""Message Lens toolkit: store, ingest, search and summaries of messaging-platform sources.

The notebook surface, in one import::

    from toolkit import Workspace
    ws = Workspace.open("data")          # Settings, store and (lazily) the embedder
    ws.load_demo()                       # or ws.import_export("result.json", ref="@handle")
    ws.sources()                         # tables: .to_pandas(), .to_polars(), HTML in Jupyter
    ws.search("@mlens_demo_en", "what is your favourite movie", limit=5)
    ws.summarize_period("@mlens_demo_en", "2026-10-20", "2026-10-27", language="en")

Names are resolved on first use, so ``import toolkit.config`` stays light and free of
import cycles.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.notebook import HitList, SummaryView, Table
    from toolkit.search.weights import SearchWeights
    from toolkit.workspace import Workspace

_EXPORTS = {
    "Workspace": "toolkit.workspace",
    "Settings": "toolkit.config",
    "SearchWeights": "toolkit.search.weights",
    "Table": "toolkit.notebook",
    "HitList": "toolkit.notebook",
    "SummaryView": "toolkit.notebook",
}

__all__ = ["HitList", "SearchWeights", "Settings", "SummaryView", "Table", "Workspace"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
