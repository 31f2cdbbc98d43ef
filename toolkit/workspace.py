"""``Workspace``: the toolkit in a few lines, for notebooks and the Streamlit app.

A workspace is opened on a data folder and holds the ``Settings``, the store and (loaded
on first use) the embedder. Every method is a thin call into the toolkit's own modules
(ingest, search, summaries, evaluation) and returns a result that converts to pandas or
polars and renders as HTML in Jupyter::

    from toolkit import Workspace
    ws = Workspace.open("data")
    ws.load_demo()
    ws.search("@mlens_demo_en", "favourite movie", limit=5)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import InvalidRequest
from toolkit.frames import Table
from toolkit.models import Source, SourceKind, SourceRef, Summary
from toolkit.refs import parse_ref
from toolkit.research import (
    Limit,
    Prepared,
    ablation_table,
    candidates_table,
    compare_table,
    prepare_sets,
    simplex_points,
)
from toolkit.search.weights import SearchWeights
from toolkit.store import SQLiteStore
from toolkit.tables import explain_table, messages_table, per_day_table, sources_table
from toolkit.views import HitList, SummaryView
from toolkit.when import When, moment

if TYPE_CHECKING:
    from toolkit.evaluate.compare import PreparedQuery
    from toolkit.ingest.export import ImportReport
    from toolkit.search.searcher import Searcher

ENGINES = ("auto", "extractive", "llm")
_DAY = timedelta(days=1)
# progress(done, total) during embedding; the app turns it into a progress bar.
Progress = Callable[[int, int], None]


class Workspace:
    """Settings, store and embedder of one data folder, with the researcher's verbs.

    Args:
        settings: the settings (their ``database_path`` names the store).
        store: an open store; by default the one ``settings`` name.
        embedder: an embedder to share (tests, the app); by default loaded on first use.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: SQLiteStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        if store is None:
            if settings.database is None:
                settings.data_dir.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(settings.database_path)
        self.store = store
        self._embedder = embedder
        self._searcher: Searcher | None = None
        self._prepared: dict[tuple[str, int | None], list[PreparedQuery]] = {}

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Workspace:
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
    def embedder(self) -> Embedder:
        """The configured embedder, loaded once on first use."""
        if self._embedder is None:
            from toolkit.embeddings import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<Workspace {self.settings.database_path}: {len(self.store.list_sources())} sources>"
        )

    # Sources and messages ----------------------------------------------------------------
    def source(self, ref: str | Source) -> Source:
        """The stored source a reference names (``@handle``, a t.me link, ``c/<id>``)."""
        if isinstance(ref, Source):
            return ref
        if ref.startswith("c/") and ref[2:].isdigit():
            ref = f"https://t.me/{ref}"
        return self.store.get_source(parse_ref(ref))

    def sources(self) -> Table:
        """Every source with its message count and time span."""
        return sources_table(self.store.list_sources())

    def messages(
        self,
        ref: str | Source,
        *,
        since: When | None = None,
        until: When | None = None,
        limit: int = 1000,
        include_service: bool = False,
    ) -> Table:
        """The most recent ``limit`` messages of a source (in ``[since, until]``), oldest first."""
        source = self.source(ref)
        rows = self.store.recent_messages(
            source.id,
            limit,
            since=moment(since, "since"),
            until=moment(until, "until"),
            include_service=include_service,
        )
        return messages_table(source, rows)

    def messages_per_day(self, ref: str | Source) -> Table:
        """Messages per UTC day over a source's whole history (service messages excluded)."""
        source = self.source(ref)
        days = (m.posted_at.date() for m in self.store.iter_messages(source.id) if not m.is_service)
        return per_day_table(source, days)

    # Import ------------------------------------------------------------------------------
    def embed(self, ref: str | Source, *, progress: bool | Progress = False) -> int:
        """Embed a source's messages that have no vector of the configured model yet.

        Returns:
            How many messages were embedded.
        """
        from toolkit.embeddings import index_source

        source = self.source(ref)
        return index_source(
            self.store,
            self.embedder,
            source.id,
            batch_size=self.settings.embed_batch_size,
            progress=progress,
        )

    def import_export(
        self,
        path: str | Path,
        *,
        ref: str | None = None,
        embed: bool = True,
        progress: bool | Progress = False,
    ) -> Table:
        """Import a Telegram Desktop JSON export and (by default) embed its messages.

        Args:
            path: the ``result.json`` of a single-chat or full-account export.
            ref: the public ``@handle`` of a single exported chat (links use it).
            embed: compute the vectors now; otherwise a search embeds its scan
                window on first use.
            progress: ``True`` for tqdm bars, or ``progress(done, total)`` per batch.

        Returns:
            One row per imported source: ref, title, kind and what changed.

        Raises:
            ImportFormatError: a malformed or truncated file; the store is left unchanged.
        """
        from toolkit.ingest.export import import_export

        report = import_export(self.store, path, ref=ref, progress=progress is True)
        embedded = {
            s.source.id: self.embed(s.source, progress=progress) if embed else 0
            for s in report.sources
        }
        return _import_table(report, embedded)

    def load_demo(self, *, only_if_empty: bool = True, embed: bool = True) -> Table:
        """Import the shipped demo sources (an English chat and a Russian channel).

        Args:
            only_if_empty: do nothing when the store already has sources.
            embed: compute every vector now (minutes on 2 cores) or lazily on search.
        """
        from toolkit.demo import demo_files

        tables = []
        if not (only_if_empty and self.store.list_sources()):
            tables = [self.import_export(p, ref=h, embed=embed) for p, h in demo_files()]
        return Table([row for t in tables for row in t], columns=_IMPORT_COLUMNS, title="Imported")

    # Search ------------------------------------------------------------------------------
    @property
    def searcher(self) -> Searcher:
        """The search engine over this store, with the settings' default weights."""
        if self._searcher is None:
            from toolkit.search.searcher import Searcher

            self._searcher = Searcher(
                self.store,
                self.embedder,
                weights=self.settings.search,
                embed_batch_size=self.settings.embed_batch_size,
            )
        return self._searcher

    def search(
        self,
        ref: str | Source,
        query: str,
        *,
        limit: int | None = None,
        scan_messages_limit: int | None = None,
        period_from: When | None = None,
        period_to: When | None = None,
        weights: SearchWeights | Mapping[str, float] | None = None,
        explain: bool = True,
    ) -> HitList:
        """Hybrid search of one source's most recent messages.

        Args:
            ref: the source.
            query: the search text.
            limit: hits to return (default: ``settings.default_limit``).
            scan_messages_limit: recent messages to scan (default: the settings').
            period_from: scan only messages posted at or after this moment.
            period_to: ... at or before this one; a bare day is included whole.
            weights: this call's ``SearchWeights`` (or a mapping of some of its fields,
                the others from the settings); by default the settings' weights.
            explain: attach each hit's four signals (``HitList.to_pandas`` shows them).

        Returns:
            The hits, best first, each with two messages of context on either side.
        """
        source = self.source(ref)
        if weights is not None and not isinstance(weights, SearchWeights):
            weights = self.settings.search.replace(**dict(weights))
        hits = self.searcher.search(
            _source_ref(source, ref),
            query,
            limit=limit or self.settings.default_limit,
            scan_messages_limit=scan_messages_limit or self.settings.default_scan_messages_limit,
            period_from=moment(period_from, "period_from"),
            period_to=moment(period_to, "period_to", after_day=_DAY - timedelta(seconds=1)),
            weights=weights,
            explain=explain,
        )
        return HitList(hits, query=query, source_ref=ref if isinstance(ref, str) else source.key)

    def explain(
        self,
        ref: str | Source,
        query: str,
        *,
        limit: int = 10,
        weights: SearchWeights | Mapping[str, float] | None = None,
        **search: Any,
    ) -> Table:
        """Why the top hits rank where they do: each signal and its weighted share.

        ``score = short_factor × (semantic_part + lexical_part + phrase_part)``, where a
        part is the signal times its weight over the sum of the three weights.

        Args:
            ref, query, limit, weights: as for ``search``.
            search: other ``search`` arguments (``scan_messages_limit``, the period).
        """
        resolved = self.settings.search if weights is None else weights
        if not isinstance(resolved, SearchWeights):
            resolved = self.settings.search.replace(**dict(resolved))
        hits = self.search(ref, query, limit=limit, weights=resolved, explain=True, **search)
        return explain_table(hits, resolved)

    # Summaries ---------------------------------------------------------------------------
    def _engine_settings(self, engine: str | None) -> Settings:
        if engine is None:
            return self.settings
        if engine not in ENGINES:
            raise InvalidRequest(f"engine must be one of {', '.join(ENGINES)}", field="engine")
        return self.settings.model_copy(update={"summary_engine": engine})

    def _view(self, source: Source, summary: Summary) -> SummaryView:
        ids = [int(i) for i in summary.important_messenger_message_ids if i.isdigit()]
        found = {m.messenger_message_id: m for m in self.store.get_messages(source.id, ids)}
        important = messages_table(source, [found[i] for i in ids if i in found])
        return SummaryView(summary, important)

    def summarize_period(
        self,
        ref: str | Source,
        start: When,
        end: When,
        *,
        language: str = "en",
        kind: str | SourceKind | None = None,
        engine: str | None = None,
    ) -> SummaryView:
        """Summarise what a source posted in ``[start, end)``.

        Args:
            ref: the source.
            start: first moment of the period; a bare day means its midnight (UTC).
            end: the end (exclusive); a bare day is included whole.
            language: ISO 639-1 code of the summary's language (extractive: en, ru).
            kind: ``"chat"`` or ``"channel"`` prompt variant; by default the source's kind.
            engine: ``"auto"``, ``"extractive"`` or ``"llm"``; by default the settings'.

        Returns:
            The summary, with its important messages resolved to text and links.
        """
        from toolkit.summarize.pipeline import summarize_period

        source = self.source(ref)
        summary = summarize_period(
            self.store,
            self.embedder,
            self._engine_settings(engine),
            _source_ref(source, ref),
            _required(moment(start, "started_at")),
            _required(moment(end, "ended_at", after_day=_DAY)),
            language,
            SourceKind(kind) if kind is not None else None,
        )
        return self._view(source, summary)

    def summarize_source(
        self,
        ref: str | Source,
        *,
        language: str = "en",
        messages_limit: int | None = None,
        engine: str | None = None,
    ) -> SummaryView:
        """Say what a source is about from its recent messages (no period wording).

        Args:
            ref: the source.
            language: ISO 639-1 code of the summary's language.
            messages_limit: recent messages to read (default: settings).
            engine: ``"auto"``, ``"extractive"`` or ``"llm"``; by default the settings'.
        """
        from toolkit.summarize.pipeline import summarize_source

        source = self.source(ref)
        summary = summarize_source(
            self.store,
            self.embedder,
            self._engine_settings(engine),
            _source_ref(source, ref),
            language,
            messages_limit,
        )
        return self._view(source, summary)

    # Evaluation ----------------------------------------------------------------------------
    def dev_sets(self, names: Sequence[str] | None = None, *, limit: Limit = None) -> Prepared:
        """The labelled dev retrieval sets, embedded (cached on disk) and prepared once.

        Args:
            names: sets to load (default: all four, ``toolkit.evaluate.retrieval.DEV_FILES``).
            limit: only the first N queries of each set (or per set name): a subsample.
        """
        from toolkit.evaluate.retrieval import DEV_FILES

        chosen = list(names or DEV_FILES)
        limits = dict(limit) if isinstance(limit, Mapping) else dict.fromkeys(chosen, limit)
        missing = [n for n in chosen if (n, limits.get(n)) not in self._prepared]
        if missing:
            fresh = prepare_sets(
                self.embedder, missing, cache_dir=self.settings.data_dir / "cache", limits=limits
            )
            self._prepared.update({(n, limits.get(n)): q for n, q in fresh.items()})
        return {n: self._prepared[(n, limits.get(n))] for n in chosen}

    def evaluate_ranking(
        self,
        weights: SearchWeights | Mapping[str, float] | None = None,
        *,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
        methods: Sequence[str] | None = None,
    ) -> Table:
        """nDCG@10, MRR@10 and Recall@20 of BM25, dense, RRF and the hybrid on the dev sets.

        Args:
            weights: the hybrid's weights (default: the settings'; a mapping changes some).
            sets, limit: which dev sets, and a subsample of their queries (``dev_sets``).
            methods: a subset of ``("BM25", "dense", "RRF", "hybrid")``.

        Returns:
            One row per method and set, with the set's language.
        """
        return compare_table(self.dev_sets(sets, limit=limit), self._weights(weights), methods)

    def ablation(
        self,
        weights: SearchWeights | Mapping[str, float] | None = None,
        *,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
    ) -> Table:
        """The hybrid with each signal (and the short factor) taken out in turn."""
        return ablation_table(self.dev_sets(sets, limit=limit), self._weights(weights))

    def weight_grid(
        self,
        points: Sequence[SearchWeights] | None = None,
        *,
        step: float = 0.1,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
    ) -> Table:
        """Score many weight settings with ``toolkit.evaluate.tuning.search_grid``.

        Args:
            points: the settings; by default the tuning grid (the simplex at ``step``
                times the short-factor shapes it tries).
            step, sets, limit: grid step; dev sets and subsample (``dev_sets``).

        Returns:
            One row per setting, best first by the tuning criterion (the worst margin
            over the best baseline across the sets, then the mean nDCG@10).
        """
        from toolkit.evaluate.tuning import search_grid, weight_grid

        chosen = list(points) if points is not None else list(weight_grid(step))
        return candidates_table(search_grid(self.dev_sets(sets, limit=limit), chosen))

    def simplex(
        self,
        *,
        step: float = 0.1,
        weights: SearchWeights | Mapping[str, float] | None = None,
        sets: Sequence[str] | None = None,
        limit: Limit = None,
    ) -> Table:
        """``weight_grid`` over the whole (semantic, lexical, phrase) simplex at ``step``,
        with the short-factor shape of ``weights`` (default: the settings')."""
        points = simplex_points(step, self._weights(weights))
        return self.weight_grid(points, sets=sets, limit=limit)

    def _weights(self, weights: SearchWeights | Mapping[str, float] | None) -> SearchWeights:
        if weights is None:
            return self.settings.search
        if isinstance(weights, SearchWeights):
            return weights
        return self.settings.search.replace(**dict(weights))

    def save_weights(self, weights: SearchWeights, path: str | Path | None = None) -> Path:
        """Write weights as JSON (default ``<data_dir>/weights.json``) for ``MLENS_WEIGHTS_FILE``.

        The service, the app and ``Settings(weights_file=...)`` load the file.
        """
        target = Path(path) if path is not None else self.settings.data_dir / "weights.json"
        weights.to_file(target)
        return target


_IMPORT_COLUMNS = [
    "ref",
    "title",
    "kind",
    "inserted",
    "updated",
    "unchanged",
    "skipped",
    "embedded",
]


def _import_table(report: ImportReport, embedded: dict[int, int]) -> Table:
    rows: list[dict[str, Any]] = [
        {
            "ref": s.source.key,
            "title": s.source.title,
            "kind": s.source.kind.value,
            "inserted": s.result.inserted,
            "updated": s.result.updated,
            "unchanged": s.result.unchanged,
            "skipped": s.skipped,
            "embedded": embedded.get(s.source.id, 0),
        }
        for s in report.sources
    ]
    return Table(rows, columns=_IMPORT_COLUMNS, title=f"Imported {report.path.name}")


def _source_ref(source: Source, ref: str | Source) -> SourceRef:
    """The reference to pass on: the caller's own text (echoed in results) when given."""
    raw = ref if isinstance(ref, str) else source.key
    return SourceRef(raw=raw, handle=source.handle, internal_id=source.internal_id)


def _required(value: datetime | None) -> datetime:
    assert value is not None
    return value


__all__ = ["ENGINES", "Workspace", "moment"]
