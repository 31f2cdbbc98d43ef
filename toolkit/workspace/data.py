"""Workspace verbs on the store itself: sources, messages, import and embedding."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict, Unpack

from toolkit.demo import demo_files
from toolkit.embeddings import index_source
from toolkit.ingest.export import import_export
from toolkit.ingest.live import MessengerClient
from toolkit.ingest.sync import SyncReport, run_sync
from toolkit.models import Message, Source
from toolkit.notebook.table import Table
from toolkit.notebook.tables import (
    IMPORT_COLUMNS,
    import_table,
    messages_table,
    per_day_table,
    sources_table,
    topics_table,
)
from toolkit.refs import SourceArg, parse_ref
from toolkit.search.request import check_filters
from toolkit.timeparse import When, lower_bound, upper_bound
from toolkit.workspace.context import Context, Progress


class MessageWindow(TypedDict, total=False):
    """Which messages ``Library.messages`` lists (the arguments of ``recent_messages``)."""

    since: When | None
    until: When | None
    limit: int
    include_service: bool
    topic_id: int | None
    sender_peer_ids: Sequence[str] | None


class Library:
    """The data of a workspace: sources, messages, imports, sync and embedding.

    "Import, then embed" is written once, here: ``import_export``, ``load_demo`` and
    ``sync`` store first and embed after (``mlens import/demo/sync``, the app use them).
    """

    def __init__(self, context: Context) -> None:
        self.ctx = context

    def sources(self) -> Table:
        """Every source with its message count and time span."""
        return sources_table(self.ctx.store.list_sources())

    def messages(self, ref: SourceArg, **window: Unpack[MessageWindow]) -> Table:
        """``recent_messages`` as a table: id, time, sender, text, media, reply, link."""
        return messages_table(self.ctx.source(ref), self.recent_messages(ref, **window))

    def recent_messages(
        self,
        ref: SourceArg,
        *,
        since: When | None = None,
        until: When | None = None,
        limit: int = 1000,
        include_service: bool = False,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> list[Message]:
        """The most recent ``limit`` messages of a source (in ``[since, until]``, of one
        forum topic and some senders when given), oldest first.

        A bare day as ``until`` is included whole (``toolkit.timeparse``); a link into a
        forum topic lists that topic.

        Raises:
            InvalidRequest: a bad time, a topic id that is not positive, or malformed
                sender ids.
        """
        source, echoed = self.ctx.resolve(ref)
        topic_id, senders = check_filters(
            topic_id=echoed.topic_id if topic_id is None else topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        return self.ctx.store.recent_messages(
            source.id,
            limit,
            since=lower_bound(since, "since"),
            until=upper_bound(until, "until"),
            include_service=include_service,
            topic_id=topic_id,
            sender_peer_ids=senders,
        )

    def topics(self, ref: str | Source) -> Table:
        """A forum's topics (id, title, message count, last message); empty for others."""
        source = self.ctx.source(ref)
        return topics_table(source, self.ctx.store.list_topics(source.id))

    def messages_per_day(self, ref: str | Source) -> Table:
        """Messages per UTC day over a source's whole history (service messages excluded)."""
        source = self.ctx.source(ref)
        days = (
            m.posted_at.date() for m in self.ctx.store.iter_messages(source.id) if not m.is_service
        )
        return per_day_table(source, days)

    def embed(self, ref: str | Source, *, progress: bool | Progress = False) -> int:
        """Embed a source's messages that have no vector of the configured model yet,
        newest first (``mlens index`` resumes an interrupted embedding this way).

        Returns:
            How many messages were embedded.
        """
        return self._embed_source(self.ctx.source(ref).id, progress)

    def index(self, ref: str | Source | None = None, *, progress: bool | Progress = False) -> Table:
        """Embed what lacks a vector in one source, or in every source when ``ref`` is None.

        Returns:
            One row per source: its ref, title and how many messages were embedded.
        """
        sources = [self.ctx.source(ref)] if ref is not None else self._all_sources()
        embedded = self._embed_all([s.id for s in sources], progress)
        rows = [{"ref": s.key, "title": s.title, "embedded": embedded[s.id]} for s in sources]
        return Table(rows, columns=["ref", "title", "embedded"], title="Embedded")

    def _embed_all(self, ids: Sequence[int], progress: bool | Progress) -> dict[int, int]:
        """Every source's default scan window first (searchable in seconds), then the
        rest of each, newest first; returns how many were embedded per source."""
        window = self.ctx.settings.default_scan_messages_limit
        embedded = {sid: self._embed_source(sid, progress, limit=window) for sid in ids}
        for sid in ids:
            embedded[sid] += self._embed_source(sid, progress)
        return embedded

    def _all_sources(self) -> list[Source]:
        return [stats.source for stats in self.ctx.store.list_sources()]

    def _embed_source(
        self, source_id: int, progress: bool | Progress = False, *, limit: int | None = None
    ) -> int:
        return index_source(
            self.ctx.store,
            self.ctx.embedder,
            source_id,
            batch_size=self.ctx.settings.embed_batch_size,
            progress=progress,
            limit=limit,
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
            self.ctx.store,
            client,
            parse_ref(ref),
            batch_size=self.ctx.settings.sync_batch_size,
            flood_sleep_threshold=self.ctx.settings.flood_sleep_threshold,
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
        timezone: str | None = None,
    ) -> Table:
        """Import a Telegram Desktop JSON export, then (by default) embed its messages.

        The messages are stored first (one transaction); then the default scan window
        of every imported source is embedded, so a default search answers without
        embedding anything; then the rest, newest first, with a progress bar. An
        interrupted embedding resumes with ``index``.

        Args:
            path: the ``result.json`` of a single-chat or full-account export.
            ref: the public ``@handle`` of a single exported chat (links use it).
            embed: compute the vectors now; otherwise a search or a summary embeds the
                messages it reads on first use.
            progress: ``True`` for tqdm bars, or ``progress(done, total)`` per batch.
            timezone: IANA zone of dates without ``date_unixtime`` (older exports).

        Returns:
            One row per imported source: ref, title, kind and what changed; its
            ``title`` is the import's one-line report (what was skipped and why).

        Raises:
            ImportFormatError: a malformed or truncated file; the store is left unchanged.
            InvalidRequest: an unknown time zone, a bad ``ref``.
        """
        report = import_export(
            self.ctx.store, path, ref=ref, progress=progress is True, timezone=timezone
        )
        ids = [s.source.id for s in report.sources]
        embedded = self._embed_all(ids, progress) if embed else dict.fromkeys(ids, 0)
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
        if not (only_if_empty and self.ctx.store.list_sources()):
            tables = [
                self.import_export(p, ref=h, embed=embed, progress=progress)
                for p, h in demo_files()
            ]
        rows = [row for table in tables for row in table]
        return Table(rows, columns=IMPORT_COLUMNS, title="Imported demo sources")
