"""``Workspace``: the toolkit in a few lines, for notebooks, the CLI and the Streamlit app.

A workspace is opened on a data folder and holds the ``Settings``, the store and (loaded
on first use) the embedder. Every verb is a thin call into the toolkit's own modules
(ingest, search, summaries, evaluation) and returns a result that converts to pandas or
polars and renders as HTML in Jupyter::

    from toolkit import Workspace
    ws = Workspace.open("data")
    ws.load_demo()
    ws.search("@mlens_demo_en", "what classes are you taking", limit=5)

The class is built by composition (``workspace.py``): one part per area, ``data``,
``search``, ``summaries`` and ``evaluation``, over a shared ``Context``.
"""

from toolkit.workspace.context import Context, Progress
from toolkit.workspace.summaries import ENGINES
from toolkit.workspace.workspace import Workspace, verb

__all__ = ["ENGINES", "Context", "Progress", "Workspace", "verb"]
