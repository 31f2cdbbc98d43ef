"""Message Lens toolkit: store, ingest, search and summaries of messaging-platform sources.

The notebook surface, in one import::

    from toolkit import Workspace
    ws = Workspace.open("data")          # Settings, store and (lazily) the embedder
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
    from toolkit.notebook import HitList, SummaryView, Table
    from toolkit.weights import SearchWeights
    from toolkit.workspace import Workspace

_HOMES = {
    "HitList": "toolkit.notebook",
    "SearchWeights": "toolkit.weights",
    "Settings": "toolkit.config",
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


__all__ = ["HitList", "SearchWeights", "Settings", "SummaryView", "Table", "Workspace"]
