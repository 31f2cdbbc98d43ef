"""Workspace verbs of summaries: a period of a source, or the source as a whole.

The engines (scikit-learn, the openai client, the language packs) are imported on the
first summary, not with the workspace: listing sources or searching never loads them.
"""

from __future__ import annotations

from toolkit.errors import ConfigError, InvalidRequest
from toolkit.models import Message, Summary
from toolkit.requests import AnySummaryRequest, SummaryRequest
from toolkit.workspace.assembly import Assembly


class Summaries:
    """The summary verbs of ``Workspace``, through ``toolkit.summarize.pipeline`` (cached
    in the store)."""

    assembly: Assembly

    def warm_up_in_background(self) -> None:
        """Load the offline engine's detector, dictionaries and date data on a thread, so
        that the first digest after a start does not wait for them (``mlens serve``
        starts it; ``toolkit.summarize.warm``)."""
        from toolkit.summarize.warm import warm_up_in_background

        warm_up_in_background()

    def summarize(self, request: AnySummaryRequest) -> Summary:
        """Summarise a period (``SummaryRequest``) or say what a source is about
        (``SourceSummaryRequest``), with the engine the request names, else the
        settings' (``MLENS_SUMMARY_ENGINE``).

        Returns:
            The summary in the contract's shape; ``engine`` names the engine that wrote it.

        Raises:
            InvalidRequest: a bad period, language, limit, filter or engine name.
            UnsupportedLanguage: a language the extractive engine cannot write.
            SourceNotFound: no such source in the store.
            UpstreamError: the LLM endpoint failed.
            Busy: every turn for summaries was taken for ``MLENS_SUMMARY_WAIT_SECONDS``
                (``MLENS_SUMMARY_CONCURRENCY`` run at once; a cached answer needs none).
        """
        from toolkit.summarize.pipeline import summarize_period, summarize_source

        ctx = self.assembly
        turns = ctx.summary_turns
        if isinstance(request, SummaryRequest):
            return summarize_period(ctx.store, ctx.embedder, ctx.settings, request, turns=turns)
        return summarize_source(ctx.store, ctx.embedder, ctx.settings, request, turns=turns)

    def summary_languages(self, engine: str | None = None) -> tuple[str, ...]:
        """The languages a summary can be written in with ``engine`` (default: the
        settings'): any ISO 639-1 code through an LLM endpoint, else the offline
        engine's packs (``en``, ``ru``, ``uk``); none when ``engine`` cannot run."""
        from toolkit.summarize.registry import summary_languages

        if engine is not None and engine not in ("auto", "extractive", "llm", "hybrid"):
            raise InvalidRequest("engine must be auto, extractive, llm or hybrid", field="engine")
        try:
            return summary_languages(self.assembly.settings, engine)
        except ConfigError:
            return ()

    def important_messages(self, summary: Summary) -> list[Message]:
        """The stored messages a summary rests on, most important first."""
        source = self.assembly.source(summary.source_ref)
        ids = [int(i) for i in summary.important_messenger_message_ids if i.isdigit()]
        found = {
            m.messenger_message_id: m for m in self.assembly.store.get_messages(source.id, ids)
        }
        return [found[i] for i in ids if i in found]
