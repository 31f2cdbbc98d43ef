"""Workspace verbs of summaries: a period of a source, or the source as a whole."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.config import Settings
from toolkit.errors import InvalidRequest
from toolkit.models import Source, SourceKind, Summary
from toolkit.notebook.tables import messages_table
from toolkit.notebook.views import SummaryView
from toolkit.requests import SourceSummaryRequest, SummaryRequest
from toolkit.summarize.pipeline import summarize_period, summarize_source
from toolkit.summarize.registry import ENGINES as ENGINE_CLASSES
from toolkit.timeparse import When, lower_bound, upper_bound
from toolkit.workspace.context import Context

ENGINES = ("auto", *ENGINE_CLASSES)
"""The ``engine`` a summary may ask for: ``auto`` or a registered engine's name."""


def _required(value: datetime | None, field: str) -> datetime:
    if value is None:
        raise InvalidRequest(f"{field} is required", field=field)
    return value


class Summaries:
    """Summaries through ``toolkit.summarize.pipeline`` (cached in the store)."""

    def __init__(self, context: Context) -> None:
        self.ctx = context

    def _engine_settings(self, engine: str | None) -> Settings:
        if engine is None:
            return self.ctx.settings
        if engine not in ENGINES:
            raise InvalidRequest(f"engine must be one of {', '.join(ENGINES)}", field="engine")
        return self.ctx.settings.model_copy(update={"summary_engine": engine})

    def _view(self, source: Source, summary: Summary) -> SummaryView:
        ids = [int(i) for i in summary.important_messenger_message_ids if i.isdigit()]
        found = {m.messenger_message_id: m for m in self.ctx.store.get_messages(source.id, ids)}
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
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> SummaryView:
        """Summarise what a source posted in ``[start, end)``.

        Args:
            ref: the source.
            start: first moment of the period; a bare day means its midnight (UTC).
            end: the end (exclusive); a bare day is included whole.
            language: ISO 639-1 code of the summary's language (extractive: en, ru).
            kind: ``"chat"`` or ``"channel"`` prompt variant; by default the source's kind.
            engine: ``"auto"``, ``"extractive"`` or ``"llm"``; by default the settings'.
            topic_id: only this forum topic's messages (General is 1).
            sender_peer_ids: only these senders' messages (``user123`` …).

        Returns:
            The summary, with its important messages resolved to text and links.
        """
        source, echoed = self.ctx.resolve(ref)
        request = SummaryRequest(
            source_ref=echoed,
            started_at=_required(lower_bound(start, "started_at"), "started_at"),
            ended_at=_required(upper_bound(end, "ended_at", exclusive=True), "ended_at"),
            language=language,
            kind=SourceKind(kind) if kind is not None else None,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        summary = summarize_period(
            self.ctx.store, self.ctx.embedder, self._engine_settings(engine), request
        )
        return self._view(source, summary)

    def summarize_source(
        self,
        ref: str | Source,
        *,
        language: str = "en",
        messages_limit: int | None = None,
        engine: str | None = None,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> SummaryView:
        """Say what a source is about from its recent messages (no period wording).

        Args:
            ref: the source.
            language: ISO 639-1 code of the summary's language.
            messages_limit: recent messages to read (default: settings).
            engine: ``"auto"``, ``"extractive"`` or ``"llm"``; by default the settings'.
            topic_id, sender_peer_ids: read only this topic's / these senders' messages.
        """
        source, echoed = self.ctx.resolve(ref)
        request = SourceSummaryRequest(
            source_ref=echoed,
            language=language,
            messages_limit=messages_limit,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        summary = summarize_source(
            self.ctx.store, self.ctx.embedder, self._engine_settings(engine), request
        )
        return self._view(source, summary)
