"""``Workspace``: one class, its verbs written in three small modules by area.

``Workspace`` inherits its verbs, ordinary methods, from ``Library`` (``data.py``:
sources, messages, import, sync, embedding), ``Search`` (``search.py``) and ``Summaries``
(``summaries.py``); each reads the one
``Assembly`` (settings, store, embedder, searcher, each built once) as
``self.assembly``. Verbs answer domain objects (``toolkit.models``);
``toolkit.notebook`` (above this package) makes tables and views of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self, Unpack

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Source
from toolkit.refs import SourceArg
from toolkit.search.searcher import Searcher
from toolkit.store import MessageStore
from toolkit.store.health import HealthProbe
from toolkit.weights import SearchWeights, WeightsArg
from toolkit.workspace.alerts import Alerting
from toolkit.workspace.assembly import Assembly, Parts
from toolkit.workspace.data import Library
from toolkit.workspace.delivery import Delivery
from toolkit.workspace.search import Search
from toolkit.workspace.summaries import Summaries


class Workspace(Library, Search, Summaries, Delivery, Alerting):
    """The application: settings, store, embedder and searcher of one data folder (one
    ``Assembly``), with every verb a face needs; each answers domain objects.

    - data (``Library``): ``health``, ``sources``, ``source_stats``, ``recent_messages``,
      ``set_timezone``, ``topics``, ``messages_per_day``, ``import_export``,
      ``load_demo``, ``sync``, ``embed``, ``index``, ``embed_in_background``,
      ``embedding_progress``;
    - search (``Search``): ``search`` (a ``SearchRequest``), ``search_all`` (a
      ``SearchAllRequest``: several sources as one ranking), ``hit_topics``;
    - summaries (``Summaries``): ``summarize`` (a ``SummaryRequest`` or a
      ``SourceSummaryRequest``), ``important_messages``, ``summary_languages``,
      ``warm_up_in_background``;
    - delivery (``Delivery``): ``add_schedule``, ``schedules``, ``schedule``,
      ``remove_schedule``, ``run_schedule_now``, ``resend_uncertain``, ``delivery_runner``,
      ``start_delivery``, ``schedule_feed``, ``delivery_failures``;
    - alerts (``Alerting``): ``add_alert``, ``alerts``, ``alert``, ``remove_alert``,
      ``run_alert_now``, ``resend_alert_uncertain``, ``alert_runner``, ``alert_failures``,
      ``after_ingest`` (a sync and an import call it: their new messages are checked
      against every alert at once).

    The service, the CLI, the app and the notebooks (through ``toolkit.notebook.Lab``)
    all hold one per process. The lab's verbs (ranking quality, weight sweeps, ROUGE)
    are ``toolkit.evaluate.lab.Evaluation``'s, beside the Workspace, not in it.

    Args:
        settings: the settings (they name the store).
        parts: a ready-made ``store``, ``embedder`` or ``searcher`` (tests, the app);
            whatever is not given is built from the settings, once.
    """

    def __init__(self, settings: Settings, **parts: Unpack[Parts]) -> None:
        self.assembly = Assembly(settings, **parts)
        self._probe = HealthProbe(self.assembly.store)

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Self:
        """Open the workspace of a data folder (created when missing).

        Args:
            data_dir: the folder of the store; by default ``settings.data_dir``.
            settings: settings to use; by default read from the environment (``MLENS_*``).
            embedder: an already loaded embedder to reuse.
        """
        settings = settings if settings is not None else Settings()
        if data_dir is not None:
            settings = settings.replace(data_dir=Path(data_dir))
        return cls(settings, embedder=embedder) if embedder is not None else cls(settings)

    @property
    def settings(self) -> Settings:
        """The workspace's settings."""
        return self.assembly.settings

    @property
    def store(self) -> MessageStore:
        """The open store."""
        return self.assembly.store

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        return self.assembly.embedder

    @property
    def searcher(self) -> Searcher:
        """The search engine over this store, with the settings' default weights."""
        return self.assembly.searcher

    def source(self, ref: SourceArg) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        return self.assembly.source(ref)

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """This call's weights against the settings' (see ``toolkit.weights.WeightsArg``)."""
        return self.assembly.weights(weights)

    def close(self) -> None:
        """Close the store, unless it was given ready-made."""
        self.assembly.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        count = len(self.store.list_sources())
        return f"<{type(self).__name__} {self.settings.store_label}: {count} sources>"
