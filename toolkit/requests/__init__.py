"""The requests a face hands the Workspace: one pydantic model per search, summary or
sync, which is also the /v1 body (the one request contract).

- ``models``: the request models, and ``check_filters`` of the topic and sender filters;
- ``fields``: their fields as annotated types (source refs, UTC times, ISO 639-1 codes,
  the bounds of ``toolkit.limits``);
- ``build``: requests from what a person gave (times as typed, a kind by name).
"""

from toolkit.limits import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SENDERS,
    MAX_SOURCE_MESSAGES,
    MAX_SOURCE_REFS,
    MAX_TOPIC_ID,
)
from toolkit.requests.build import (
    ScopeOptions,
    SearchOptions,
    SummaryOptions,
    search_all_request,
    search_request,
    summary_request,
)
from toolkit.requests.fields import PEER_ID_RE, check_filters
from toolkit.requests.models import (
    AnyRequest,
    AnySummaryRequest,
    BaseSearchRequest,
    BaseSummaryRequest,
    Request,
    ScopedRequest,
    SearchAllRequest,
    SearchRequest,
    SourceSummaryRequest,
    SummaryRequest,
    SyncRequest,
)

__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_SCAN",
    "MAX_SENDERS",
    "MAX_SOURCE_MESSAGES",
    "MAX_SOURCE_REFS",
    "MAX_TOPIC_ID",
    "PEER_ID_RE",
    "AnyRequest",
    "AnySummaryRequest",
    "BaseSearchRequest",
    "BaseSummaryRequest",
    "Request",
    "ScopeOptions",
    "ScopedRequest",
    "SearchAllRequest",
    "SearchOptions",
    "SearchRequest",
    "SourceSummaryRequest",
    "SummaryOptions",
    "SummaryRequest",
    "SyncRequest",
    "check_filters",
    "search_all_request",
    "search_request",
    "summary_request",
]
