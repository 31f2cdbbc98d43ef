"""Workspace verbs of search: ranked hits with context, and the forum topic of each.

A search goes down as it came: the request to ``Searcher.search`` (``search_all``),
which applies the settings' defaults and parses the ref, once."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.models import GENERAL_TOPIC, Hits, SearchHit
from toolkit.refs import SourceArg
from toolkit.requests import SearchAllRequest, SearchRequest
from toolkit.workspace.assembly import Assembly


class Search:
    """The search verbs of ``Workspace``, through the assembly's one ``Searcher``."""

    assembly: Assembly

    def search(self, request: SearchRequest) -> Hits:
        """Hybrid search of one source's most recent messages (``Searcher.search``).

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
            InvalidSourceRef: a reference that names no source.
            SourceNotFound: a source the store does not have.
            DeadlineExceeded: the request's deadline passed while waiting for a turn.
        """
        return self.assembly.searcher.search(request)

    def search_all(self, request: SearchAllRequest) -> Hits:
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
        return self.assembly.searcher.search_all(request)

    def hit_topics(self, ref: SourceArg, hits: Sequence[SearchHit]) -> dict[str, str]:
        """The title of each hit's forum topic, by message id; empty outside forums."""
        source = self.assembly.source(ref)
        titles = {t.topic_id: t.title for t in self.assembly.store.list_topics(source.id)}
        if not titles or not hits:
            return {}
        ids = [int(hit.messenger_message_id) for hit in hits]
        out = {}
        for m in self.assembly.store.get_messages(source.id, ids):
            topic = m.topic_id or GENERAL_TOPIC  # a forum's message outside topics is in General
            out[str(m.messenger_message_id)] = titles.get(topic, f"Topic {topic}")
        return out
