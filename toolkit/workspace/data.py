"""Workspace verbs on the store itself: sources, messages, import and embedding."""

from __future__ import annotations

from pathlib import Path

from toolkit.demo import demo_files
from toolkit.embeddings import index_source
from toolkit.frames import Table
from toolkit.ingest.export import import_export
from toolkit.ingest.live import MessengerClient
from toolkit.ingest.sync import SyncReport, run_sync
from toolkit.models import Message, Source
from toolkit.refs import parse_ref
from toolkit.tables import (
    IMPORT_COLUMNS,
    import_table,
    messages_table,
    per_day_table,
    sources_table,
)
from toolkit.when import When, moment
from toolkit.workspace.base import Progress, WorkspaceBase


class DataMixin(WorkspaceBase):
    """Sources, messages, imports and embedding."""

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

    def embed(self, ref: str | Source, *, progress: bool | Progress = False) -> int:
        """Embed a source's messages that have no vector of the configured model yet.

        Returns:
            How many messages were embedded.
        """
        return self._embed_source(self.source(ref).id, progress)

    def _embed_source(self, source_id: int, progress: bool | Progress = False) -> int:
        return index_source(
            self.store,
            self.embedder,
            source_id,
            batch_size=self.settings.embed_batch_size,
            progress=progress,
        )

    def _embed_batch(self, source_id: int, _messages: list[Message]) -> None:
        # Each committed batch of a sync is embedded at once, so searches never wait for it.
        self._embed_source(source_id)

    def sync(
        self,
        ref: str,
        client: MessengerClient,
        *,
        full: bool = False,
        limit: int | None = None,
        progress: bool = False,
    ) -> SyncReport:
        """Fetch a source's new messages live, embedding each committed batch at once.

        Args:
            ref: the source (it need not be in the store yet).
            client: the messenger adapter (``TelethonMessengerClient.from_settings``).
            full: refetch from the first message, to pick up old edits.
            limit: fetch at most this many messages in this run.
            progress: show a tqdm bar.

        Raises:
            SourceNotFound: the messenger has no such source.
            UpstreamError: the messenger failed; what arrived before is committed.
        """
        return run_sync(
            self.store,
            client,
            parse_ref(ref),
            batch_size=self.settings.sync_batch_size,
            flood_sleep_threshold=self.settings.flood_sleep_threshold,
            progress=progress,
            full=full,
            limit=limit,
            on_batch=self._embed_batch,
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
            embed: compute the vectors now; otherwise a search or a summary embeds the
                messages it reads on first use.
            progress: ``True`` for tqdm bars, or ``progress(done, total)`` per batch.

        Returns:
            One row per imported source: ref, title, kind and what changed.

        Raises:
            ImportFormatError: a malformed or truncated file; the store is left unchanged.
        """
        report = import_export(self.store, path, ref=ref, progress=progress is True)
        embedded = {
            s.source.id: self.embed(s.source, progress=progress) if embed else 0
            for s in report.sources
        }
        return import_table(report, embedded)

    def load_demo(
        self, *, only_if_empty: bool = True, embed: bool = True, progress: bool | Progress = False
    ) -> Table:
        """Import the shipped demo sources (an English chat and a Russian channel).

        Args:
            only_if_empty: do nothing when the store already has sources.
            embed: compute every vector now (minutes on 2 cores) or lazily on use.
            progress: as for ``import_export``.
        """
        tables = []
        if not (only_if_empty and self.store.list_sources()):
            tables = [
                self.import_export(p, ref=h, embed=embed, progress=progress)
                for p, h in demo_files()
            ]
        rows = [row for table in tables for row in table]
        return Table(rows, columns=IMPORT_COLUMNS, title="Imported demo sources")
