"""Workspace verbs on the store itself: sources, messages, import, sync and embedding."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from toolkit.config import Settings
from toolkit.demo import demo_files
from toolkit.embeddings import index_source
from toolkit.embeddings.background import BackgroundEmbedding, EmbeddingProgress
from toolkit.ingest.export.read import import_export
from toolkit.ingest.export.report import ImportReport
from toolkit.ingest.live.client import MessengerClient, TelethonMessengerClient
from toolkit.ingest.live.sync import run_sync
from toolkit.models import Message, MessageFilter, Source, SourceStats, SyncReport, TopicStats
from toolkit.refs import SourceArg, parse_ref
from toolkit.requests import check_filters
from toolkit.store.health import HealthProbe, StoreHealth
from toolkit.timeparse import When, lower_bound, upper_bound, zone_name
from toolkit.workspace.assembly import Assembly, Progress
from toolkit.zones import AUTO_ZONE, settle_zone


@dataclass(frozen=True)
class Imported:
    """What one import stored (``report``), and how many messages of each of its
    sources were embedded after it (by the store's source id)."""

    report: ImportReport
    embedded: dict[int, int]


def messenger_client(settings: Settings) -> MessengerClient:
    """A fresh live client from the settings (Telethon binds a client to the loop it
    connects in, so each sync takes a new one).

    Raises:
        ConfigError: the messenger's credentials are not configured.
    """
    return TelethonMessengerClient.from_settings(settings)


class Library:
    """The data verbs of ``Workspace``: sources, messages, imports, sync and embedding.

    "Import, then embed" is written once, here: ``import_export``, ``load_demo`` and
    ``sync`` store first and embed after (``mlens import/demo/sync``, the app use them).
    """

    assembly: Assembly
    _probe: HealthProbe
    """Set by ``Workspace`` (``HealthProbe`` of the assembly's store)."""
    after_ingest: Callable[[], None]
    """Checks the alerts once new messages have landed (``alerts.Alerting``)."""

    def health(self, timeout: float) -> StoreHealth:
        """Whether the store answers within ``timeout`` seconds, and its size.

        Raises:
            StoreError: it failed (``StoreDamaged``: its file is corrupted), or did not
                answer in time.
        """
        return self._probe.run(timeout)

    def sources(self) -> list[SourceStats]:
        """Every source with its message counts, time span, last sync and forum topics."""
        return self.assembly.store.list_sources()

    def source_stats(self, ref: SourceArg) -> SourceStats:
        """One stored source with its counts, time span, last sync and forum topics."""
        return self.assembly.store.source_stats(self.assembly.source(ref).id)

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
        source, echoed = self.assembly.resolve(ref)
        topic_id, senders = check_filters(
            topic_id=echoed.topic_id if topic_id is None else topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        where = MessageFilter(
            since=lower_bound(since, "since"),
            until=upper_bound(until, "until"),
            include_service=include_service,
            topic_id=topic_id,
            sender_peer_ids=senders,
        )
        return self.assembly.store.recent_messages(source.id, limit, where)

    def set_timezone(self, ref: SourceArg, zone: str) -> Source:
        """Set a source's own time zone, in which its summaries read "tomorrow at 13:40".

        A zone set here wins over one inferred from its people's activity and over the
        export's offset (``toolkit.zones``); ``"auto"`` forgets a zone set before and
        infers one from the stored messages (none when they do not tell: UTC).

        Args:
            ref: the source (``@handle``, a t.me link, ``c/<id>``).
            zone: an IANA name (``Europe/Berlin``), a fixed UTC offset (``+09:00``;
                ``+9``, ``+0900`` and ``UTC+9`` are written so too), or ``"auto"``.

        Returns:
            The source with its new ``timezone`` and ``timezone_origin``.

        Raises:
            InvalidRequest: an unknown zone (``field="timezone"``).
            SourceNotFound: no such source in the store.
        """
        store, source = self.assembly.store, self.assembly.source(ref)
        if zone.strip().lower() == AUTO_ZONE:
            if source.timezone_origin == "set":
                source = store.set_source_timezone(source.id, None, None)
            return settle_zone(store, source)
        return store.set_source_timezone(source.id, zone_name(zone), "set")

    def topics(self, ref: SourceArg) -> list[TopicStats]:
        """A forum's topics (id, title, message count, last message); empty for others."""
        return self.assembly.store.list_topics(self.assembly.source(ref).id)

    def messages_per_day(self, ref: SourceArg) -> dict[date, int]:
        """Messages per UTC day over a source's whole history (service messages
        excluded), days in order; quiet days are left out."""
        source = self.assembly.source(ref)
        days = Counter(
            m.posted_at.date()
            for m in self.assembly.store.iter_messages(source.id)
            if not m.is_service
        )
        return dict(sorted(days.items()))

    def embed(self, ref: SourceArg, *, progress: bool | Progress = False) -> int:
        """Embed a source's messages that have no vector of the configured model yet,
        newest first (``mlens index`` resumes an interrupted embedding this way).

        Returns:
            How many messages were embedded.
        """
        return self._embed_source(self.assembly.source(ref).id, progress)

    def index(
        self, ref: SourceArg | None = None, *, progress: bool | Progress = False
    ) -> list[tuple[Source, int]]:
        """Embed what lacks a vector in one source, or in every source when ``ref`` is None.

        Returns:
            Each source, with how many of its messages were embedded.
        """
        sources = [self.assembly.source(ref)] if ref is not None else self._all_sources()
        embedded = self._embed_all([s.id for s in sources], progress)
        return [(s, embedded[s.id]) for s in sources]

    def embed_in_background(self) -> BackgroundEmbedding:
        """Embed, in a thread, every message of every source that lacks a vector: each
        source's default scan window first, then the rest, newest first, in small
        batches that leave the cores to searches (``mlens serve`` starts it).

        Until it is done a search embeds nothing itself: it ranks the messages without a
        vector by their lexical signals and says how many had one (``Hits``). Closing
        the workspace stops it; one runs at a time.

        Returns:
            The running embedding: ``progress()``, ``stop()``.
        """
        return self.assembly.embed_in_background()

    def embedding_progress(self) -> EmbeddingProgress | None:
        """Where the background embedding stands (``None`` when none was started)."""
        return self.assembly.embedding_progress()

    def _embed_all(self, ids: Sequence[int], progress: bool | Progress) -> dict[int, int]:
        """Every source's default scan window first (searchable in seconds), then the
        rest of each, newest first; returns how many were embedded per source."""
        window = self.assembly.settings.search.default_scan_messages_limit
        embedded = {sid: self._embed_source(sid, progress, limit=window) for sid in ids}
        for sid in ids:
            embedded[sid] += self._embed_source(sid, progress)
        return embedded

    def _all_sources(self) -> list[Source]:
        return [stats.source for stats in self.assembly.store.list_sources()]

    def _embed_source(
        self, source_id: int, progress: bool | Progress = False, *, limit: int | None = None
    ) -> int:
        return index_source(
            self.assembly.store,
            self.assembly.embedder,
            source_id,
            batch_size=self.assembly.settings.embedding.batch_size,
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
        embed: bool = True,
        with_comments: bool = False,
    ) -> SyncReport:
        """Fetch a source's new messages live, embedding each committed batch at once.

        Args:
            ref: the source (it need not be in the store yet).
            client: the messenger adapter (``messenger_client(settings)``).
            full: refetch from the first message, to pick up old edits.
            limit: fetch at most this many messages in this run.
            progress: show a tqdm bar.
            embed: embed each committed batch (otherwise a search embeds what it reads).
            with_comments: for a channel with a discussion group, also store the
                comments of the posts fetched, as the group's messages (its own source).

        Raises:
            SourceNotFound: the messenger has no such source.
            UpstreamError: the messenger failed; what arrived before is committed.
        """
        report = run_sync(
            self.assembly.store,
            client,
            parse_ref(ref),
            batch_size=self.assembly.settings.messenger.sync_batch_size,
            flood_sleep_threshold=self.assembly.settings.messenger.flood_sleep_threshold,
            progress=progress,
            full=full,
            limit=limit,
            on_batch=self._embed_batch if embed else None,
            with_comments=with_comments,
        )
        self.after_ingest()  # alerts post the new matches now, not at the next tick
        return report

    def import_export(
        self,
        path: str | Path,
        *,
        ref: str | None = None,
        embed: bool = True,
        progress: bool | Progress = False,
        timezone: str | None = None,
    ) -> Imported:
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
            timezone: the zone (IANA name or ``+03:00``) of dates without
                ``date_unixtime`` (older exports), recorded as the sources' own zone;
                without it the exporter's most common UTC offset is recorded.

        Returns:
            The import's report (per source what changed and what was skipped, and its
            one-line summary ``report.line()``), with the embedded counts.

        Raises:
            ImportFormatError: a malformed or truncated file; the store is left unchanged.
            InvalidRequest: an unknown time zone, a bad ``ref``.
        """
        report = import_export(
            self.assembly.store, path, ref=ref, progress=progress is True, timezone=timezone
        )
        ids = [s.source.id for s in report.sources]
        embedded = self._embed_all(ids, progress) if embed else dict.fromkeys(ids, 0)
        self.after_ingest()
        return Imported(report, embedded)

    def load_demo(
        self, *, only_if_empty: bool = True, embed: bool = True, progress: bool | Progress = False
    ) -> list[Imported]:
        """Import the shipped demo sources (an English chat and a Russian channel).

        Args:
            only_if_empty: do nothing when the store already has sources.
            embed: compute every vector now (minutes on 2 cores) or lazily on use.
            progress: as for ``import_export``.

        Returns:
            One ``Imported`` per demo file; none when the store was left as it was.
        """
        if only_if_empty and self.assembly.store.list_sources():
            return []
        return [
            self.import_export(p, ref=h, embed=embed, progress=progress) for p, h in demo_files()
        ]
