"""``Lab``: the Workspace for a person at a notebook, answering tables and views.

``Workspace`` verbs answer domain objects (``SourceStats``, ``SearchHit``, ``Summary``…)
and take one request object for a search or a summary. A person at a notebook wants
keyword arguments, times as people type them, and something to look at: ``Lab`` wraps a
workspace and gives its verbs that shape, making each answer a ``Table`` (``.to_pandas()``,
``.to_polars()``, HTML), a ``HitList`` or a ``SummaryView``::

    from toolkit import Workspace
    from toolkit.notebook import Lab
    ws = Lab(Workspace.open("data"))
    ws.sources()
    ws.search("@mlens_demo_en", "what classes are you taking", limit=5)

It holds the lab beside the workspace (``evaluation``, a ``toolkit.evaluate.lab.Evaluation``
of it) and answers its verbs as tables too. Any other attribute is the lab's
(``dev_sets``, ``save_weights``, ``published_evaluation``…) or else the workspace's own
(``settings``, ``sync``, ``close``…). This layer sits above ``toolkit.workspace``. The
evaluation tables are imported when asked for (they need ``toolkit.evaluate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self, Unpack

from toolkit.evaluate.lab import Evaluation
from toolkit.models import Source, SourceKind
from toolkit.notebook.table import Table
from toolkit.notebook.tables import (
    IMPORT_COLUMNS,
    embedded_table,
    explain_table,
    import_table,
    messages_table,
    per_day_table,
    sources_table,
    topics_table,
)
from toolkit.notebook.views import HitList, SummaryView
from toolkit.refs import SourceArg
from toolkit.requests import (
    AnySummaryRequest,
    SearchOptions,
    SummaryOptions,
    search_request,
    summary_request,
)
from toolkit.timeparse import When
from toolkit.weights import SearchWeights, WeightsArg
from toolkit.workspace import Workspace


class Lab:
    """A workspace's verbs with keyword arguments, answering tables and views.

    Args:
        workspace: the workspace whose verbs these are.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.evaluation = Evaluation(workspace)

    def __getattr__(self, name: str) -> Any:
        if name in ("workspace", "evaluation"):  # not set yet (a copy being made)
            raise AttributeError(name)
        lab = self.evaluation
        return getattr(lab if hasattr(type(lab), name) else self.workspace, name)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.workspace.close()

    def __repr__(self) -> str:
        return f"<Lab over {self.workspace!r}>"

    def sources(self) -> Table:
        """Every source with its message count, time span and forum topics."""
        return sources_table(self.workspace.sources())

    def messages(self, ref: SourceArg, **window: Any) -> Table:
        """``Workspace.recent_messages`` as a table: id, time, sender, text, media, reply,
        link (``since``, ``until``, ``limit``, ``include_service``, ``topic_id``,
        ``sender_peer_ids`` choose them)."""
        ws = self.workspace
        return messages_table(ws.source(ref), ws.recent_messages(ref, **window))

    def topics(self, ref: SourceArg) -> Table:
        """A forum's topics (id, title, message count, last message); empty for others."""
        return topics_table(self.workspace.source(ref), self.workspace.topics(ref))

    def messages_per_day(self, ref: SourceArg) -> Table:
        """Messages per UTC day over a source's history, quiet days as zeros."""
        return per_day_table(self.workspace.source(ref), self.workspace.messages_per_day(ref))

    def import_export(self, path: str | Path, **options: Any) -> Table:
        """``Workspace.import_export``: one row per imported source (ref, title, kind, what
        changed, how many embedded); the title is the import's one-line report."""
        imported = self.workspace.import_export(path, **options)
        return import_table(imported.report, imported.embedded)

    def load_demo(self, **options: Any) -> Table:
        """``Workspace.load_demo``: one row per demo source imported."""
        rows = [
            row
            for imported in self.workspace.load_demo(**options)
            for row in import_table(imported.report, imported.embedded)
        ]
        return Table(rows, columns=IMPORT_COLUMNS, title="Imported demo sources")

    def index(self, ref: SourceArg | None = None, **options: Any) -> Table:
        """``Workspace.index``: one row per source with how many messages were embedded."""
        return embedded_table(self.workspace.index(ref, **options))

    def search(
        self,
        ref: SourceArg,
        query: str,
        *,
        period_from: When | None = None,
        period_to: When | None = None,
        **options: Unpack[SearchOptions],
    ) -> HitList:
        """Hybrid search of one source's most recent messages (a ``SearchRequest``).

        Args:
            ref, query: the source and the search text.
            period_from, period_to: scan only messages of this period; a bare day is
                included whole.
            options: the ``SearchOptions``: ``limit`` and ``scan_messages_limit`` (hits,
                and recent messages to scan; default: the settings'); ``weights`` (see
                ``WeightsArg``; default: the settings'); ``explain`` (each hit's four
                signals, which ``HitList.to_pandas`` shows; default ``True`` here);
                ``topic_id`` and ``sender_peer_ids`` (only this forum topic, these senders).

        Returns:
            The hits, best first, with two messages of context on either side; in a
            forum the list knows each hit's topic title (``HitList.topic_of``).
        """
        options.setdefault("explain", True)
        request = search_request(ref, query, period=(period_from, period_to), **options)
        hits = self.workspace.search(request)
        topics = self.workspace.hit_topics(ref, hits)
        return HitList(hits, query=query, source_ref=_echo(ref), topics=topics)

    def explain(
        self,
        ref: SourceArg,
        query: str,
        *,
        limit: int = 10,
        weights: WeightsArg = None,
        **search: Any,
    ) -> Table:
        """Why the top hits rank where they do: each signal and its weighted share.

        ``score = short_factor × (semantic_part + lexical_part + phrase_part)``, where a
        part is the signal times its weight over the sum of the three weights.

        Args:
            ref, query, limit, weights: as for ``search``.
            search: other ``search`` arguments (``scan_messages_limit``, the period).
        """
        resolved = self.workspace.weights(weights)
        hits = self.search(ref, query, limit=limit, weights=resolved, explain=True, **search)
        return explain_table(hits, resolved)

    def summarize_period(
        self,
        ref: SourceArg,
        start: When,
        end: When,
        *,
        kind: str | SourceKind | None = None,
        **options: Unpack[SummaryOptions],
    ) -> SummaryView:
        """Summarise what a source posted in ``[start, end)`` (a ``SummaryRequest``).

        Args:
            ref: the source.
            start: first moment of the period; a bare day means its midnight (UTC).
            end: the end (exclusive); a bare day is included whole.
            kind: ``"chat"`` or ``"channel"`` variant; by default the source's kind.
            options: the ``SummaryOptions``: ``language`` (ISO 639-1, default ``"en"``),
                ``engine`` (``"auto"``, ``"extractive"`` or ``"llm"``; by default the
                settings'), ``topic_id`` and ``sender_peer_ids`` (only this forum topic's,
                these senders' messages), ``use_cache``.

        Returns:
            The summary, with its important messages resolved to text and links.
        """
        return self._view(summary_request(ref, period=(start, end), kind=kind, **options))

    def summarize_source(
        self,
        ref: SourceArg,
        *,
        messages_limit: int | None = None,
        **options: Unpack[SummaryOptions],
    ) -> SummaryView:
        """Say what a source is about from its recent messages (a ``SourceSummaryRequest``).

        Args:
            ref: the source.
            messages_limit: recent messages to read (default: the settings').
            options: as for ``summarize_period``.
        """
        request = summary_request(ref, period=None, messages_limit=messages_limit, **options)
        return self._view(request)

    def _view(self, request: AnySummaryRequest) -> SummaryView:
        summary = self.workspace.summarize(request)
        important = self.workspace.important_messages(summary)
        source = self.workspace.source(request.source_ref)
        return SummaryView(summary, messages_table(source, important))

    def evaluate_ranking(self, weights: WeightsArg = None, **options: Any) -> Table:
        """``Evaluation.evaluate_ranking``: one row per method and set, with its language."""
        from toolkit.notebook.quality import results_table

        resolved = self.evaluation.weights(weights)
        results = self.evaluation.evaluate_ranking(resolved, **options)
        title = f"Ranking quality, hybrid weights {resolved.model_dump()}"
        return results_table(results, title=title)

    def ablation(self, weights: WeightsArg = None, **options: Any) -> Table:
        """``Evaluation.ablation``: one row per variant and set."""
        from toolkit.notebook.quality import ablation_table

        return ablation_table(self.evaluation.ablation(weights, **options))

    def weight_grid(self, points: Sequence[SearchWeights] | None = None, **options: Any) -> Table:
        """``Evaluation.weight_grid``: one row per weight setting, best first."""
        from toolkit.notebook.quality import candidates_table

        return candidates_table(self.evaluation.weight_grid(points, **options))

    def simplex(self, **options: Any) -> Table:
        """``Evaluation.simplex``: one row per point of the weight simplex, best first."""
        from toolkit.notebook.quality import candidates_table

        return candidates_table(self.evaluation.simplex(**options))

    def evaluate_summaries(self, **options: Any) -> Table:
        """``Evaluation.evaluate_summaries``: ROUGE F1 per system, best values bold."""
        from toolkit.notebook.quality import rouge_table

        rows = self.evaluation.evaluate_summaries(**options)
        return rouge_table(rows, title="Summaries: ROUGE F1 on the dev dialogues")

    def summary_outputs(self, **options: Any) -> Table:
        """``Evaluation.summary_outputs``: every system's summary of every dev dialogue."""
        from toolkit.notebook.quality import summary_outputs_table

        return summary_outputs_table(self.evaluation.summary_outputs(**options))


def _echo(ref: SourceArg) -> str:
    """A reference as results echo it: the caller's text, or a stored source's key."""
    if isinstance(ref, Source):
        return ref.key
    return ref if isinstance(ref, str) else ref.raw
