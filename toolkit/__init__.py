"""Message Lens toolkit: store, ingest, search and summaries of messaging-platform sources.

The notebook surface, in one import::

    from toolkit import Workspace
    ws = Workspace.open("data")          # Settings, store and (lazily) the embedder
    ws.load_demo()                       # or ws.import_export("result.json", ref="@handle")
    ws.sources()                         # tables: .to_pandas(), .to_polars(), HTML in Jupyter
    ws.search("@mlens_demo_en", "what is your favourite movie", limit=5)
    ws.summarize_period("@mlens_demo_en", "2026-10-20", "2026-10-27", language="en")
"""

from toolkit.config import Settings
from toolkit.notebook import HitList, SummaryView, Table
from toolkit.weights import SearchWeights
from toolkit.workspace import Workspace

__all__ = ["HitList", "SearchWeights", "Settings", "SummaryView", "Table", "Workspace"]
