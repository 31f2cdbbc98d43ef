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

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.errors import InvalidRequest
from toolkit.frames import Table
from toolkit.models import Source, SourceKind, SourceRef, Summary, utc
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore
from toolkit.tables import messages_table, per_day_table, sources_table
from toolkit.views import SummaryView

if TYPE_CHECKING:
    from toolkit.ingest.export import ImportReport

When = datetime | date | str
ENGINES = ("auto", "extractive", "llm")
# progress(done, total) during embedding; the app turns it into a progress bar.
Progress = Callable[[int, int], None]


def moment(
    value: When | None, field: str, *, after_day: timedelta | None = None
) -> datetime | None:
    """A user's time as tz-aware UTC; ``None`` stays ``None``.

    Args:
        value: a datetime (naive is UTC), a date, or an ISO 8601 string of either.
        field: the argument's name, for the error.
        after_day: for an upper bound given as a bare day: the moment is the day's
            midnight plus this much (``timedelta(days=1)``: the whole day is inside).

    Raises:
        InvalidRequest: a string that is no ISO 8601 date or datetime.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            message = f"{text!r} is not an ISO 8601 date or datetime"
            raise InvalidRequest(message, field=field) from None
    if isinstance(value, datetime):
        return utc(value)
    midnight = datetime(value.year, value.month, value.day, tzinfo=UTC)
    return midnight + after_day if after_day is not None else midnight


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
            _required(moment(end, "ended_at", after_day=timedelta(days=1))),
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
