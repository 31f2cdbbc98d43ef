"""``Workspace``: the toolkit in a few lines, for notebooks and the Streamlit app.

A workspace is opened on a data folder and holds the ``Settings``, the store and (loaded
on first use) the embedder. Every method is a thin call into the toolkit's own modules
(ingest, search, summaries, evaluation) and returns a result that converts to pandas or
polars and renders as HTML in Jupyter::

    from toolkit import Workspace
    ws = Workspace.open("data")
    ws.load_demo()
    ws.search("@mlens_demo_en", "what classes are you taking", limit=5)

The verbs live in one module per area (``data``, ``search``, ``summaries``,
``evaluation``) over a shared ``WorkspaceBase``.
"""

from __future__ import annotations

from toolkit.workspace.base import WeightsArg, WorkspaceBase
from toolkit.workspace.data import DataMixin
from toolkit.workspace.evaluation import EvaluationMixin
from toolkit.workspace.search import SearchMixin
from toolkit.workspace.summaries import ENGINES, SummariesMixin


class Workspace(DataMixin, SearchMixin, SummariesMixin, EvaluationMixin, WorkspaceBase):
    """Settings, store and embedder of one data folder, with the researcher's verbs:

    - data: ``sources``, ``messages``, ``messages_per_day``, ``import_export``,
      ``load_demo``, ``embed``;
    - search: ``search``, ``explain``;
    - summaries: ``summarize_period``, ``summarize_source``;
    - evaluation: ``evaluate_ranking``, ``ablation``, ``weight_grid``, ``simplex``,
      ``save_weights``, ``evaluate_summaries``, ``summary_outputs``.

    Open one with ``Workspace.open(data_dir)``; see ``WorkspaceBase`` for the arguments.
    """


__all__ = ["ENGINES", "WeightsArg", "Workspace"]
