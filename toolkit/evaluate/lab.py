"""The lab beside the application: ranking quality on the dev sets, weight sweeps, ROUGE.

``Evaluation(workspace)`` holds what it measures with (the settings and the embedder of
an application, a ``Workspace``) and the dev sets it has prepared; the notebooks'
``toolkit.notebook.Lab`` and the app's Evaluation page each hold one beside their
Workspace, which stays the application (library, search, summaries). The rest of
``toolkit.evaluate`` is imported inside the verbs: it needs the ``eval`` extra (bm25s,
sumy, rouge-score), which the CLI, the service and the app do without.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from toolkit.weights import SearchWeights, WeightsArg, resolve_weights

if TYPE_CHECKING:
    from toolkit.config import Settings
    from toolkit.embeddings import Embedder
    from toolkit.evaluate.compare import Prepared, PreparedQuery
    from toolkit.evaluate.published import Published
    from toolkit.evaluate.results import Candidate, Results
    from toolkit.evaluate.summaries import Dialogue

Limit = int | Mapping[str, int | None] | None
"""A subsample: the first N queries of every set, or per set name (``None``: all)."""


class Application(Protocol):
    """What the lab reads of the application (a ``Workspace`` is one)."""

    @property
    def settings(self) -> Settings:
        """The settings: the data folder, the configured weights and engines."""

    @property
    def embedder(self) -> Embedder:
        """The embedder the dev sets are embedded with."""


class Evaluation:
    """The evaluation verbs: the dev-set measurements of ``toolkit.evaluate`` with an
    application's settings and embedder (``toolkit.notebook.Lab`` shows them as tables).

    Args:
        app: the application measured (a ``Workspace``).
    """

    def __init__(self, app: Application) -> None:
        self.app = app
        self._prepared: dict[tuple[str, int | None], list[PreparedQuery]] = {}

    def __repr__(self) -> str:
        return f"<Evaluation of {self.app!r}>"

    @property
    def cache_dir(self) -> Path:
        """Where evaluation vectors are cached (``<data_dir>/cache``, as ``make eval``)."""
        return self.app.settings.data_dir / "cache"

    def weights(self, weights: WeightsArg = None) -> SearchWeights:
        """This call's weights against the settings' (see ``toolkit.weights.WeightsArg``)."""
        return resolve_weights(weights, self.app.settings.search.weights)

    def dev_sets(self, names: Sequence[str] | None = None, *, limit: Limit = None) -> Prepared:
        """The labelled dev retrieval sets, embedded (cached on disk) and prepared once.

        Args:
            names: sets to load (default: all four, ``toolkit.evaluate.retrieval.DEV_FILES``).
            limit: only the first N queries of each set (or per set name): a subsample.
        """
        from toolkit.evaluate.compare import prepare_sets
        from toolkit.evaluate.retrieval import DEV_FILES

        chosen = list(names or DEV_FILES)
        limits = dict(limit) if isinstance(limit, Mapping) else dict.fromkeys(chosen, limit)
        missing = [n for n in chosen if (n, limits.get(n)) not in self._prepared]
        if missing:
            fresh = prepare_sets(
                self.app.embedder, missing, cache_dir=self.cache_dir, limits=limits
            )
            self._prepared.update({(n, limits.get(n)): q for n, q in fresh.items()})
        return {n: self._prepared[(n, limits.get(n))] for n in chosen}

    def evaluate_ranking(
        self,
        weights: WeightsArg = None,
        *,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
        methods: Sequence[str] | None = None,
    ) -> Results:
        """nDCG@10, MRR@10 and Recall@20 of BM25, dense, RRF and the hybrid on the dev sets.

        Args:
            weights: the hybrid's weights (see ``WeightsArg``; default: the settings').
            sets, limit: which dev sets, and a subsample of their queries (``dev_sets``).
            methods: a subset of ``("BM25", "dense", "RRF", "hybrid")``.

        Returns:
            Each metric's mean, by method and set.
        """
        from toolkit.evaluate.compare import compare
        from toolkit.evaluate.results import METHODS

        resolved = self.weights(weights)
        return compare(self.dev_sets(sets, limit=limit), resolved, methods or METHODS)

    def ablation(
        self, weights: WeightsArg = None, *, sets: Sequence[str] | None = None, limit: Limit = None
    ) -> Results:
        """The hybrid with each signal (and the short factor) taken out in turn: each
        metric's mean, by variant and set."""
        from toolkit.evaluate.ablation import ablation

        return ablation(self.dev_sets(sets, limit=limit), self.weights(weights))

    def weight_grid(
        self,
        points: Sequence[SearchWeights] | None = None,
        *,
        step: float = 0.1,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
    ) -> list[Candidate]:
        """Score many weight settings with ``toolkit.evaluate.tuning.search_grid``.

        Args:
            points: the settings; by default the tuning grid (the simplex at ``step``
                times the short-factor shapes it tries).
            step, sets, limit: grid step; dev sets and subsample (``dev_sets``).

        Returns:
            The settings, best first by the tuning criterion (the worst margin over the
            best baseline across the sets, then the mean nDCG@10).
        """
        from toolkit.evaluate.tuning import search_grid, weight_grid

        chosen = list(points) if points is not None else list(weight_grid(step))
        return search_grid(self.dev_sets(sets, limit=limit), chosen)

    def simplex(
        self,
        *,
        step: float = 0.1,
        weights: WeightsArg = None,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
    ) -> list[Candidate]:
        """``weight_grid`` over the whole (semantic, lexical, phrase) simplex at ``step``,
        with the other fields (the short factor's shape …) of ``weights``."""
        from toolkit.evaluate.tuning import simplex_points

        points = simplex_points(step, self.weights(weights))
        return self.weight_grid(points, sets=sets, limit=limit)

    def save_weights(self, weights: SearchWeights, path: str | Path | None = None) -> Path:
        """Write weights as JSON (default ``<data_dir>/weights.json``).

        ``MLENS_WEIGHTS_FILE`` / ``Settings(search={"weights_file": ...})`` load it: the
        service, the app and every workspace then rank with these weights.
        """
        target = Path(path) if path is not None else self.app.settings.data_dir / "weights.json"
        weights.to_file(target)
        return target

    def published_evaluation(self, path: Path | None = None) -> tuple[Published, list[str]]:
        """What ``make eval`` last measured (``docs/results/eval.json``) and its stale parts.

        Args:
            path: another results file (default: the one committed with the code).

        Returns:
            The published results, and the parts (``"ranking"``, ``"summaries"``,
            ``"candidates"``) missing or measured with another engine than this
            workspace's embedder and today's default weights and extractive engine.
        """
        from toolkit.evaluate.published import RESULTS_FILE, current_engines, read_published

        published = read_published(path or RESULTS_FILE)
        return published, published.stale_parts(current_engines(self.app.embedder.model_name))

    def evaluate_summaries(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        """ROUGE-1/2/L F1 of the summary engines and the baselines on the dev dialogues.

        Args:
            limit: only the first N dialogues (a subsample).

        Returns:
            One record per system (and baseline size ``k``); the LLM engine is included
            when an endpoint is configured.
        """
        from toolkit.evaluate.summaries import evaluate_summaries

        return evaluate_summaries(
            self._dialogues(limit),
            self.app.embedder,
            settings=self.app.settings,
            cache_dir=self.cache_dir,
        )

    def summary_outputs(self, *, limit: int | None = None, k: int = 2) -> list[dict[str, Any]]:
        """Each dev dialogue's summary by each system, with its length and ROUGE F1."""
        from toolkit.evaluate.summaries import dialogue_vectors
        from toolkit.evaluate.summary_outputs import summary_outputs

        dialogues = self._dialogues(limit)
        vectors = dialogue_vectors(dialogues, self.app.embedder, cache_dir=self.cache_dir)
        return summary_outputs(dialogues, vectors, k=k)

    def _dialogues(self, limit: int | None) -> list[Dialogue]:
        from toolkit.evaluate.summaries import DEV_FILE, load_dialogues

        return load_dialogues(DEV_FILE, limit=limit)
