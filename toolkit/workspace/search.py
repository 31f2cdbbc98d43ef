"""Workspace verbs of search: ranked hits with context, and the forum topic of each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from toolkit.models import GENERAL_TOPIC, Hits, SearchHit
from toolkit.refs import SourceArg
from toolkit.requests import SearchAllRequest, SearchRequest
from toolkit.workspace.assembly import Assembly

AnySearch = TypeVar("AnySearch", SearchRequest, SearchAllRequest)


class Search:
    """Hybrid search over the store, through the assembly's one ``Searcher``."""

    def __init__(self, assembly: Assembly) -> None:
        self.ctx = assembly

    def _with_defaults(self, request: AnySearch) -> AnySearch:
        """The request with an unset ``limit``/``scan_messages_limit`` the settings' default."""
        settings = self.ctx.settings
        return replace(
            request,
            limit=settings.default_limit if request.limit is None else request.limit,
            scan_messages_limit=settings.default_scan_messages_limit
            if request.scan_messages_limit is None
            else request.scan_messages_limit,
        )

    def search(self, request: SearchRequest) -> Hits:
        """Hybrid search of one source's most recent messages (``toolkit.search``).

        An unset ``limit`` or ``scan_messages_limit`` takes the settings' default
        (``MLENS_DEFAULT_LIMIT``, ``MLENS_DEFAULT_SCAN_MESSAGES_LIMIT``); the request's
        weights are taken against the configured ones.

        Returns:
            The hits, best first (ties newest first), each with up to two messages of
            context on either side: of its forum topic in a forum, else of the source;
            with how many messages were scanned and how many of them had a vector
            (fewer while a background embedding is at work, see ``embed_in_background``).

        Raises:
            InvalidRequest: out-of-bounds fields (``InvalidWeights`` for weights).
            SourceNotFound: a source the store does not have.
            DeadlineExceeded: the request's deadline passed while waiting for a turn.
        """
        return self.ctx.searcher.run(self._with_defaults(request))

    def search_all(self, request: SearchAllRequest) -> list[SearchHit]:
        """Hybrid search of the most recent messages of several sources (every stored
        source unless ``request.source_refs`` names some), as one ranking whose scores
        compare across sources (``Searcher.search_all``).

        Unset limits take the settings' defaults as in ``search``; sources ×
        ``scan_messages_limit`` is bounded by ``MLENS_SEARCH_ALL_MAX_SCAN``.

        Returns:
            The hits, best first (ties newest first), each naming its source
            (``source_ref``, ``source_title``) and with its context as in ``search``.

        Raises:
            InvalidRequest: out-of-bounds fields, the bound above exceeded
                (``field="scan_messages_limit"``), an empty ``source_refs``.
            SourceNotFound: a named source the store does not have.
            DeadlineExceeded: the request's deadline passed while waiting for a turn.
        """
        return self.ctx.searcher.run_all(self._with_defaults(request))

    def hit_topics(self, ref: SourceArg, hits: Sequence[SearchHit]) -> dict[str, str]:
        """The title of each hit's forum topic, by message id; empty outside forums."""
        source = self.ctx.source(ref)
        titles = {t.topic_id: t.title for t in self.ctx.store.list_topics(source.id)}
        if not titles or not hits:
            return {}
        ids = [int(hit.messenger_message_id) for hit in hits]
        out = {}
        for m in self.ctx.store.get_messages(source.id, ids):
            topic = m.topic_id or GENERAL_TOPIC  # a forum's message outside topics is in General
            out[str(m.messenger_message_id)] = titles.get(topic, f"Topic {topic}")
        return out
