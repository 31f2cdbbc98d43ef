"""``Workspace``: the one assembly of the application, for every face.

A workspace is opened on a data folder and holds the ``Settings``, the store, and (built
on first use, once) the embedder and the searcher (``assembly.Assembly``). The service,
the CLI, the Streamlit app and the notebooks all go through it; every verb is a thin call
into the toolkit's own modules (ingest, search, summaries) and answers
domain objects (``toolkit.models``). A search or a summary is one typed request
(``toolkit.requests``)::

    from toolkit import SearchRequest, Workspace
    ws = Workspace.open("data")
    ws.load_demo()
    ws.search(SearchRequest(source_ref="@mlens_demo_en", query="what classes", limit=5))

Tables, HTML views and DataFrames are ``toolkit.notebook``'s (above this package):
``Lab(ws)`` has the same verbs with keyword arguments, answering those, and the lab's
(``toolkit.evaluate.lab.Evaluation``, which stands beside the Workspace, not in it).

The class (``workspace.py``) inherits its verbs, ordinary methods, from one module per
area, ``data``, ``search``, ``summaries`` and ``delivery``, which all read one
``Assembly``. What a schedule's faces need of ``toolkit.delivery`` (``ScheduleRequest``,
``ScheduleSpec``, ``Rule``, ``parse_destinations``, ``ScheduleOut``, ``DestinationOut``)
and of an alert (``AlertRequest``, ``AlertOut``) is handed on here.
"""

from toolkit.delivery.alert_model import AlertRequest, parse_alert_destinations
from toolkit.delivery.alert_out import AlertList, AlertOut
from toolkit.delivery.model import Destination, ScheduleRequest, ScheduleSpec, parse_destinations
from toolkit.delivery.out import ScheduleList, ScheduleOut
from toolkit.delivery.periods import Rule
from toolkit.delivery.status import DestinationOut
from toolkit.ingest.live.client import MessengerClient
from toolkit.workspace.assembly import Assembly, Parts, Progress, copy_stores, store_at
from toolkit.workspace.data import Imported, messenger_client
from toolkit.workspace.workspace import Workspace

__all__ = [
    "AlertList",
    "AlertOut",
    "AlertRequest",
    "Assembly",
    "Destination",
    "DestinationOut",
    "Imported",
    "MessengerClient",
    "Parts",
    "Progress",
    "Rule",
    "ScheduleList",
    "ScheduleOut",
    "ScheduleRequest",
    "ScheduleSpec",
    "Workspace",
    "copy_stores",
    "messenger_client",
    "parse_alert_destinations",
    "parse_destinations",
    "store_at",
]
