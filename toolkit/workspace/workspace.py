"""``Workspace``: one class whose verbs are the methods of four small parts.

The parts share one ``Context`` (settings, store, embedder): ``Library`` (sources,
messages, import, sync, embedding), ``Search``, ``Summaries`` and ``Evaluation``. Each
verb of the workspace *is* a part's method (``verb``), so its signature and docstring
are written once, where the work is done.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MethodType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Source
from toolkit.refs import SourceArg
from toolkit.search.searcher import Searcher
from toolkit.store import MessageStore, open_store
from toolkit.store.files import private_dir
from toolkit.weights import SearchWeights, WeightsArg
from toolkit.workspace.context import Context
from toolkit.workspace.data import Library
from toolkit.workspace.evaluation import Evaluation
from toolkit.workspace.search import Search
from toolkit.workspace.summaries import Summaries

Part = TypeVar("Part")
P = ParamSpec("P")
R = TypeVar("R")


class verb(Generic[Part, P, R]):  # noqa: N801 (used like a decorator, as ``property``)
    """A workspace verb that is the method of one of its parts, typed as that method.

    Args:
        part: the workspace attribute holding the part (``"library"``).
        method: the part's method (``Library.sources``).
    """

    def __init__(self, part: str, method: Callable[Concatenate[Part, P], R]) -> None:
        self.part = part
        self.method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, workspace: None, owner: type[Any]) -> verb[Part, P, R]: ...
    @overload
    def __get__(self, workspace: object, owner: type[Any] | None = None) -> Callable[P, R]: ...
    def __get__(
        self, workspace: object | None, owner: type[Any] | None = None
    ) -> verb[Part, P, R] | Callable[P, R]:
        if workspace is None:
            return self
        bound: Callable[P, R] = MethodType(self.method, getattr(workspace, self.part))
        return bound


class Workspace:
    """Settings, store and embedder of one data folder, with the researcher's verbs:

    - data (``Library``): ``sources``, ``messages``, ``recent_messages``, ``topics``,
      ``messages_per_day``, ``import_export``, ``load_demo``, ``sync``, ``embed``,
      ``index``;
    - search (``Search``): ``search``, ``explain``;
    - summaries (``Summaries``): ``summarize_period``, ``summarize_source``;
    - evaluation (``Evaluation``): ``dev_sets``, ``evaluate_ranking``, ``ablation``,
      ``weight_grid``, ``simplex``, ``save_weights``, ``evaluate_summaries``,
      ``summary_outputs``.

    Args:
        settings: the settings (they name the store).
        store: an open store; by default the one ``settings`` name.
        embedder: an embedder to share (tests, the app); by default loaded on first use.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: MessageStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        if store is None:
            if settings.database is None and settings.postgres_url is None:
                private_dir(settings.data_dir)  # 0700: the store holds private chats
            store = open_store(settings)
        self.context = Context(settings, store, embedder)
        self.library = Library(self.context)
        self.finder = Search(self.context)
        self.summaries = Summaries(self.context)
        self.evaluation = Evaluation(self.context)

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
            settings = settings.model_copy(update={"data_dir": Path(data_dir)})
        return cls(settings, embedder=embedder)

    @property
    def settings(self) -> Settings:
        """The workspace's settings."""
        return self.context.settings

    @property
    def store(self) -> MessageStore:
        """The open store."""
        return self.context.store

    @property
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        return self.context.embedder

    @property
    def searcher(self) -> Searcher:
        """The search engine over this store, with the settings' default weights."""
        return self.finder.searcher

    @property
    def cache_dir(self) -> Path:
        """Where evaluation vectors are cached (``<data_dir>/cache``, as ``make eval``)."""
        return self.evaluation.cache_dir

    def source(self, ref: SourceArg) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        return self.context.source(ref)

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """This call's weights against the settings' (see ``toolkit.weights.WeightsArg``)."""
        return self.context.weights(weights)

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        count = len(self.store.list_sources())
        return f"<{type(self).__name__} {self.settings.store_label}: {count} sources>"

    sources = verb("library", Library.sources)
    messages = verb("library", Library.messages)
    recent_messages = verb("library", Library.recent_messages)
    topics = verb("library", Library.topics)
    messages_per_day = verb("library", Library.messages_per_day)
    import_export = verb("library", Library.import_export)
    load_demo = verb("library", Library.load_demo)
    sync = verb("library", Library.sync)
    embed = verb("library", Library.embed)
    index = verb("library", Library.index)

    search = verb("finder", Search.search)
    explain = verb("finder", Search.explain)

    summarize_period = verb("summaries", Summaries.summarize_period)
    summarize_source = verb("summaries", Summaries.summarize_source)

    dev_sets = verb("evaluation", Evaluation.dev_sets)
    evaluate_ranking = verb("evaluation", Evaluation.evaluate_ranking)
    ablation = verb("evaluation", Evaluation.ablation)
    weight_grid = verb("evaluation", Evaluation.weight_grid)
    simplex = verb("evaluation", Evaluation.simplex)
    save_weights = verb("evaluation", Evaluation.save_weights)
    evaluate_summaries = verb("evaluation", Evaluation.evaluate_summaries)
    summary_outputs = verb("evaluation", Evaluation.summary_outputs)
