"""``Workspace``: one class whose verbs are the methods of four small parts.

The parts share one ``Assembly`` (settings, store, embedder, searcher, each built once):
``Library`` (sources, messages, import, sync, embedding), ``Search``, ``Summaries`` and
``Evaluation``. Each verb of the workspace *is* a part's method (``verb``), so its
signature and docstring are written once, where the work is done. Verbs answer domain
objects (``toolkit.models``); ``toolkit.notebook`` makes tables and views of them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MethodType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, Unpack, overload

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.models import Source
from toolkit.refs import SourceArg
from toolkit.search.searcher import Searcher
from toolkit.store import MessageStore
from toolkit.weights import SearchWeights, WeightsArg
from toolkit.workspace.assembly import Assembly, Parts
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
    - evaluation (``Evaluation``): ``dev_sets``, ``evaluate_ranking``, ``ablation``,
      ``weight_grid``, ``simplex``, ``save_weights``, ``evaluate_summaries``,
      ``summary_outputs``.

    The service, the CLI, the app and the notebooks (through ``toolkit.notebook.Lab``)
    all hold one per process.

    Args:
        settings: the settings (they name the store).
        parts: a ready-made ``store``, ``embedder`` or ``searcher`` (tests, the app);
            whatever is not given is built from the settings, once.
    """

    def __init__(self, settings: Settings, **parts: Unpack[Parts]) -> None:
        self.assembly = Assembly(settings, **parts)
        self.library = Library(self.assembly)
        self.finder = Search(self.assembly)
        self.summaries = Summaries(self.assembly)
        self.evaluation = Evaluation(self.assembly)

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

    @property
    def cache_dir(self) -> Path:
        """Where evaluation vectors are cached (``<data_dir>/cache``, as ``make eval``)."""
        return self.evaluation.cache_dir

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

    sources = verb("library", Library.sources)
    health = verb("library", Library.health)
    source_stats = verb("library", Library.source_stats)
    recent_messages = verb("library", Library.recent_messages)
    set_timezone = verb("library", Library.set_timezone)
    topics = verb("library", Library.topics)
    messages_per_day = verb("library", Library.messages_per_day)
    import_export = verb("library", Library.import_export)
    load_demo = verb("library", Library.load_demo)
    sync = verb("library", Library.sync)
    embed = verb("library", Library.embed)
    index = verb("library", Library.index)
    embed_in_background = verb("library", Library.embed_in_background)
    embedding_progress = verb("library", Library.embedding_progress)

    search = verb("finder", Search.search)
    search_all = verb("finder", Search.search_all)
    hit_topics = verb("finder", Search.hit_topics)

    summarize = verb("summaries", Summaries.summarize)
    important_messages = verb("summaries", Summaries.important_messages)
    summary_languages = verb("summaries", Summaries.languages)
    warm_up_in_background = verb("summaries", Summaries.warm_up_in_background)

    dev_sets = verb("evaluation", Evaluation.dev_sets)
    evaluate_ranking = verb("evaluation", Evaluation.evaluate_ranking)
    ablation = verb("evaluation", Evaluation.ablation)
    weight_grid = verb("evaluation", Evaluation.weight_grid)
    simplex = verb("evaluation", Evaluation.simplex)
    save_weights = verb("evaluation", Evaluation.save_weights)
    published_evaluation = verb("evaluation", Evaluation.published_evaluation)
    evaluate_summaries = verb("evaluation", Evaluation.evaluate_summaries)
    summary_outputs = verb("evaluation", Evaluation.summary_outputs)
