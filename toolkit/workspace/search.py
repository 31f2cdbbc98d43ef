"""Workspace verbs of search: ranked hits with context, and why they rank so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.models import GENERAL_TOPIC, SearchHit, Source
from toolkit.notebook.table import Table
from toolkit.notebook.tables import explain_table
from toolkit.notebook.views import HitList
from toolkit.search.searcher import Searcher
from toolkit.timeparse import When, lower_bound, upper_bound
from toolkit.weights import WeightsArg
from toolkit.workspace.context import Context


class Search:
    """Hybrid search over the store (``toolkit.search.searcher``)."""

    def __init__(self, context: Context) -> None:
        self.ctx = context
        self._searcher: Searcher | None = None

    @property
    def searcher(self) -> Searcher:
        """The search engine over this store, with the settings' default weights."""
        if self._searcher is None:
            self._searcher = Searcher(
                self.ctx.store,
                self.ctx.embedder,
                weights=self.ctx.settings.search,
                embed_batch_size=self.ctx.settings.embed_batch_size,
                concurrency=self.ctx.settings.search_concurrency,
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
        weights: WeightsArg = None,
        explain: bool = True,
        topic_id: int | None = None,
        sender_peer_ids: Sequence[str] | None = None,
    ) -> HitList:
        """Hybrid search of one source's most recent messages.

        Args:
            ref: the source.
            query: the search text.
            limit: hits to return (default: ``settings.default_limit``).
            scan_messages_limit: recent messages to scan (default: the settings').
            period_from: scan only messages posted at or after this moment.
            period_to: ... at or before this one; a bare day is included whole.
            weights: this call's weights (see ``WeightsArg``); default: the settings'.
            explain: attach each hit's four signals (``HitList.to_pandas`` shows them).
            topic_id: scan only this forum topic (General is 1).
            sender_peer_ids: scan only these senders' messages (``user123`` …); the
                window is their most recent messages.

        Returns:
            The hits, best first, each with two messages of context on either side
            (of its forum topic in a forum, else of the source); in a forum the list
            knows each hit's topic title (``HitList.topic_of``).
        """
        source, echoed = self.ctx.resolve(ref)
        settings = self.ctx.settings
        hits = self.searcher.search(
            echoed,
            query,
            limit=limit or settings.default_limit,
            scan_messages_limit=scan_messages_limit
            or self.ctx.settings.default_scan_messages_limit,
            period_from=lower_bound(period_from, "period_from"),
            period_to=upper_bound(period_to, "period_to"),
            weights=self.ctx.weights(weights),
            explain=explain,
            topic_id=topic_id,
            sender_peer_ids=sender_peer_ids,
        )
        return HitList(hits, query=query, source_ref=echoed.raw, topics=self._topics(source, hits))

    def _topics(self, source: Source, hits: Sequence[SearchHit]) -> dict[str, str]:
        """Each hit's forum topic title by message id; empty outside forums."""
        titles = {t.topic_id: t.title for t in self.ctx.store.list_topics(source.id)}
        if not titles or not hits:
            return {}
        ids = [int(hit.messenger_message_id) for hit in hits]
        out = {}
        for m in self.ctx.store.get_messages(source.id, ids):
            topic = m.topic_id or GENERAL_TOPIC  # a forum's message outside topics is in General
            out[str(m.messenger_message_id)] = titles.get(topic, f"Topic {topic}")
        return out

    def explain(
        self,
        /,
        ref: str | Source,
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
        resolved = self.ctx.weights(weights)
        hits = self.search(ref, query, limit=limit, weights=resolved, explain=True, **search)
        return explain_table(hits, resolved)
