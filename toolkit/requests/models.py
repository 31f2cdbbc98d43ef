"""The request models: one pydantic model per search, summary or sync, the /v1 body as it
is and the object every other face hands the Workspace.

A route takes one of these as its body; a command, an app page, a tool or a notebook
builds one (``toolkit.requests.build``: times as a person types them) and the object
itself travels through ``Workspace`` to the searcher or the summary pipeline. Its fields
carry the bounds (``toolkit.requests.fields``, the numbers of ``toolkit.limits``), so a
request that exists is within them: over HTTP a failure is a 422 naming the field, to a
toolkit caller an ``InvalidRequest`` naming it.

- ``ScopedRequest``: the topic and sender filters every request has, and
  ``message_filter()``, the ``MessageFilter`` of the messages the request reads (its
  period, topic, senders), resolved here once and passed down to the store;
- ``BaseSearchRequest``: the fields both searches share (query, window, ranking);
- ``SearchRequest``: rank one source's recent messages for a query (contract §2.3);
- ``SearchAllRequest``: rank the recent messages of several sources as one list;
- ``BaseSummaryRequest``: the fields both summaries share (source, language, and the
  toolkit's engine and cache choice, which the /v1 schema does not show);
- ``SummaryRequest``: summarise a period ``[started_at, ended_at)`` of a source (§2.1);
- ``SourceSummaryRequest``: say what a source is about, from a sample of its whole life;
- ``SyncRequest``: fetch a source's new messages live.

Times are datetimes, converted to UTC (naive means UTC).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import SkipJsonSchema

from toolkit.errors import InvalidRequest, InvalidSourceRef
from toolkit.limits import (
    DEFAULT_SYNC,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SOURCE_MESSAGES,
    MAX_SOURCE_REFS,
    MAX_SYNC,
)
from toolkit.models import MessageFilter, SourceKind
from toolkit.refs import SourceArg
from toolkit.requests.fields import (
    HitLimit,
    LanguageCode,
    QueryText,
    ScanLimit,
    SenderPeerIds,
    SourceField,
    SourceRefStr,
    StrictCount,
    StrictFlag,
    TopicId,
    UtcDatetime,
    check_filters,
    check_not_before,
)
from toolkit.weights import WeightsField


def invalid_request(exc: ValidationError) -> InvalidRequest:
    """The toolkit's error for a request model's first failure, naming its field."""
    error = exc.errors()[0]
    field = str(error["loc"][0]) if error["loc"] else None
    if error["type"] == "invalid_source_ref":
        return InvalidSourceRef(str(error["input"]), str(error.get("ctx", {}).get("reason", "")))
    return InvalidRequest(f"invalid {field}: {error['msg']}", field=field)


Init = TypeVar("Init", bound=Callable[..., None])


def constructor_only(init: Init) -> Init:
    """Mark a model's ``__init__`` as the toolkit's constructor alone.

    pydantic calls an overridden ``__init__`` when it validates a body too, unless the
    method carries the flag its own ``BaseModel.__init__`` carries; with it, a /v1 body
    is validated as pydantic does (FastAPI's 422 problem, nested field names and all)
    and only a toolkit caller's ``Request(...)`` runs ``init``.
    """
    init.__pydantic_base_init__ = True  # type: ignore[attr-defined]
    return init


class Request(BaseModel):
    """A request model: frozen, and to a toolkit caller a failure is an ``InvalidRequest``.

    A command, a tool or a notebook that builds one gets the toolkit's error, which every
    face already answers; the service validates a body without the constructor.
    """

    model_config = ConfigDict(frozen=True)

    @constructor_only
    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise invalid_request(exc) from None


class ScopedRequest(Request):
    """The filters every search and summary request has: one forum topic, some senders
    (each request declares them last, with its own wording)."""

    if TYPE_CHECKING:  # declared by each request, last, in its own words
        topic_id: int | None
        sender_peer_ids: list[str] | None

    def message_filter(self, linked_topic: int | None = None) -> MessageFilter:
        """The store's filter for the messages this request reads, checked: its period
        (each request's own), topic and senders.

        Args:
            linked_topic: the topic the request's link points into, taken when the request
                names none.

        Raises:
            InvalidRequest: a bad topic id or sender id (``check_filters``).
        """
        topic_id, senders = check_filters(
            topic_id=linked_topic if self.topic_id is None else self.topic_id,
            sender_peer_ids=self.sender_peer_ids,
        )
        return self._read(MessageFilter(topic_id=topic_id, sender_peer_ids=senders))

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """``scope`` (the checked topic and senders) with what this request reads."""
        return scope


class BaseSearchRequest(ScopedRequest):
    """What every hybrid search takes: the query, the window's bounds and filters, the
    ranking's options (``SearchRequest`` adds one source, ``SearchAllRequest`` several)."""

    query: QueryText = Field(
        description=f"Search text: 1..{MAX_QUERY_CHARS} characters, not blank."
    )
    # Absent: the service's Settings decide (DESIGN.md §3 Defaults), so the schema
    # names the setting rather than a number that may not be the one in force.
    limit: HitLimit | None = Field(
        None, description=f"Hits to return (1..{MAX_LIMIT}); default 20 (`MLENS_DEFAULT_LIMIT`)."
    )
    scan_messages_limit: ScanLimit | None = Field(
        None,
        description=f"Most recent messages to scan (1..{MAX_SCAN}); default 200 "
        "(`MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`).",
    )
    period_from: UtcDatetime | None = Field(None, description="Scan messages posted from here.")
    period_to: UtcDatetime | None = Field(
        None, description="Scan messages posted up to here; not before period_from."
    )
    explain: StrictFlag = Field(False, description="Add each hit's four signals.")
    weights: WeightsField = Field(
        None, description="Override some of the configured ranking weights for this call."
    )
    topic_id: TopicId | None = Field(None, description="Scan only this forum topic.")
    sender_peer_ids: SenderPeerIds | None = Field(
        None, description="Scan only these senders' messages (the window is theirs)."
    )

    @field_validator("period_to")
    @classmethod
    def _not_before_from(cls, value: Any, info: ValidationInfo) -> Any:
        return check_not_before(value, info, other="period_from", strict=False)

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The scan window: searchable messages in ``[period_from, period_to]``."""
        return replace(scope, since=self.period_from, until=self.period_to).searchable()


class SearchRequest(BaseSearchRequest):
    """A search of one source's recent messages (contract §2.3)."""

    source_ref: SourceField = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")


class SearchAllRequest(BaseSearchRequest):
    """A search of the recent messages of several sources, ranked as one list."""

    source_refs: list[SourceField] | None = Field(
        None,
        min_length=1,
        max_length=MAX_SOURCE_REFS,
        description="The sources to search (each echoed in its hits as given); "
        "absent: every stored source (hits carry its `@handle` or `c/<id>`).",
    )
    limit: HitLimit | None = Field(
        None,
        description=f"Hits to return over all sources (1..{MAX_LIMIT}); default 20 "
        "(`MLENS_DEFAULT_LIMIT`).",
    )
    scan_messages_limit: ScanLimit | None = Field(
        None,
        description=f"Most recent messages to scan in EACH source (1..{MAX_SCAN}); default 200 "
        "(`MLENS_DEFAULT_SCAN_MESSAGES_LIMIT`). Sources × this may be at most "
        "`MLENS_SEARCH_ALL_MAX_SCAN` (100000 by default): above it, 422.",
    )
    topic_id: TopicId | None = Field(None, description="Scan only this forum topic of each.")
    sender_peer_ids: SenderPeerIds | None = Field(
        None, description="Scan only these senders' messages (the windows are theirs)."
    )


class BaseSummaryRequest(ScopedRequest):
    """What both summaries take (``SummaryRequest`` adds a period, ``SourceSummaryRequest``
    a bound on the messages read).

    ``engine`` (``"auto"`` or an engine's name; ``None``: ``Settings.summary.engine``) and
    ``use_cache`` are the toolkit's choices, given to the constructor and read as
    properties: no body can set them (the service validates a body without calling
    ``__init__``), so over HTTP the service's settings choose.
    """

    if TYPE_CHECKING:  # declared by each request in the contract's order
        source_ref: SourceArg
        language: str

    _engine: str | None = PrivateAttr(None)
    _use_cache: bool = PrivateAttr(True)

    @constructor_only
    def __init__(
        self, /, *, engine: str | None = None, use_cache: bool = True, **data: Any
    ) -> None:
        super().__init__(**data)
        self._engine, self._use_cache = engine, use_cache

    @property
    def engine(self) -> str | None:
        """``"auto"`` or an engine's name; ``None``: ``Settings.summary.engine``."""
        return self._engine

    @property
    def use_cache(self) -> bool:
        """Answer from the cache when it holds this summary."""
        return self._use_cache


class SummaryRequest(BaseSummaryRequest):
    """A period summary request (contract §2.1)."""

    source_ref: SourceField = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")
    started_at: UtcDatetime = Field(description="Start of the period (inclusive).")
    ended_at: UtcDatetime = Field(description="End of the period (exclusive); after started_at.")
    language: LanguageCode = Field(description="ISO 639-1 code of the output language.")
    topic_id: TopicId | None = Field(None, description="Only this forum topic's messages.")
    sender_peer_ids: SenderPeerIds | None = Field(None, description="Only these senders' messages.")
    # The chat or channel variant; ``None``: the source's own kind (the route's path
    # sets it, so the schema does not show it).
    kind: SkipJsonSchema[SourceKind | None] = None

    @field_validator("ended_at")
    @classmethod
    def _after_start(cls, value: Any, info: ValidationInfo) -> Any:
        return check_not_before(value, info, other="started_at", strict=True)

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The period's messages, ``[started_at, ended_at)``."""
        return replace(scope, since=self.started_at, before=self.ended_at)


class SourceSummaryRequest(BaseSummaryRequest):
    """What a source is about, from a sample spread over its whole life."""

    source_ref: SourceField = Field(description="`@handle`, a t.me link or `t.me/c/<id>`.")
    language: LanguageCode = Field(description="ISO 639-1 code of the output language.")
    messages_limit: StrictCount | None = Field(
        None,
        ge=1,
        le=MAX_SOURCE_MESSAGES,
        description=f"Messages to read at most (1..{MAX_SOURCE_MESSAGES}), spread over the "
        "source's whole life when it has more; default 500 (`MLENS_SOURCE_SUMMARY_MESSAGES`).",
    )
    topic_id: TopicId | None = Field(None, description="Only this forum topic's messages.")
    sender_peer_ids: SenderPeerIds | None = Field(None, description="Only these senders' messages.")

    def _read(self, scope: MessageFilter) -> MessageFilter:
        """The source's searchable messages, its whole life."""
        return scope.searchable()


class SyncRequest(Request):
    """A live sync of one source, from where the last one stopped."""

    source_ref: SourceRefStr
    limit: StrictCount = Field(
        DEFAULT_SYNC,
        ge=1,
        le=MAX_SYNC,
        description="Fetch at most this many messages in this call.",
    )
    with_comments: bool = Field(
        False,
        strict=True,
        description="For a channel with a discussion group: also store the comments of the "
        "posts fetched, as messages of the group replying to their post.",
    )


AnySummaryRequest = SummaryRequest | SourceSummaryRequest
"""Either kind of summary request (``Workspace.summarize`` takes both)."""

AnyRequest = TypeVar(
    "AnyRequest", SearchRequest, SearchAllRequest, SummaryRequest, SourceSummaryRequest
)
