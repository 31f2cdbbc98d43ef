"""The notebook layer: how results look, in a notebook, a terminal and the app.

Above ``toolkit.workspace`` (which answers domain objects) and the features: it may
import the ``Workspace``, ``toolkit.evaluate``, ``toolkit.search`` … and the core;
nothing in the toolkit below imports it. Tables and views of the workspace's answers are
made here (and in the app), never in the workspace; ``Lab(workspace)`` gives the
notebooks its verbs this way.

- ``table``: ``Table``, records that become a DataFrame, HTML, a rich table or a Styler;
- ``cells``: one value as text or HTML, shared by every rendering of a table;
- ``tables``: tables of sources, messages, per-day counts, imports, explained hits;
- ``quality``: tables of evaluation results (ranking, ablation, weights, ROUGE);
- ``views``: ``HitList`` and ``SummaryView``, HTML views of hits and summaries;
- ``plots``: matplotlib figures (messages per day, the weight simplex, sweeps);
- ``lab``: ``Lab``, a workspace's verbs answering these tables and views;
- ``report``: ``make eval``, the quality claims checked, printed and published.
"""

from __future__ import annotations

from toolkit.notebook.lab import Lab
from toolkit.notebook.table import Table
from toolkit.notebook.views import HitList, SummaryView

__all__ = ["HitList", "Lab", "SummaryView", "Table"]
