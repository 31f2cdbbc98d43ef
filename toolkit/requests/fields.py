"""The fields of the request models (DESIGN.md §3 Bounds and Time), as annotated types.

Each type carries its validation, so that a failure names its field (a 422 problem over
HTTP, an ``InvalidRequest`` to the toolkit's own callers); the numbers are
``toolkit.limits``':

- ``SourceRefStr``: a string ``toolkit.refs.parse_ref`` accepts, kept exactly as given
  (responses echo it); ``SourceField``: the same over the wire, and also a parsed
  ``SourceRef`` or a ``Source`` from the toolkit's callers.
- ``UtcDatetime``: ISO 8601 in (an offset is converted to UTC, a naive value is UTC),
  ISO 8601 UTC with ``Z`` out.
- ``LanguageCode``: a known ISO 639-1 code, case-insensitive, lower-cased.
- ``QueryText``, ``HitLimit``, ``ScanLimit``, ``TopicId``, ``SenderPeerIds``: the bounds
  of a request.
- ``StrictCount``, ``StrictFlag``: JSON types taken as they are (``true`` is no integer,
  ``"yes"`` no boolean).
- ``check_not_before``: a field validator body for "this bound is not before that one";
- ``check_filters``: the topic and sender filters checked where no model stands between
  (a link's topic, the store's listings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainValidator,
    Strict,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from toolkit.errors import InvalidRequest, InvalidSourceRef
from toolkit.limits import (
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SCAN,
    MAX_SENDERS,
    MAX_TOPIC_ID,
    PEER_ID_PATTERN,
)
from toolkit.models import Source, SourceRef, utc
from toolkit.refs import SourceArg, parse_ref
from toolkit.wire import UtcTime

# ISO 639-1 (184 two-letter codes).
ISO_639_1: frozenset[str] = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu
    cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi
    ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks
    ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl
    nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg sh si sk
    sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz
    ve vi vo wa wo xh yi yo za zh zu""".split()  # noqa: SIM905 (a table reads better)
)

_ISO_DATE_START = re.compile(r"^\s*\d{4}-\d{2}-\d{2}")


def _check_ref(value: str) -> str:
    try:
        parse_ref(value)
    except InvalidSourceRef as exc:
        raise PydanticCustomError("invalid_source_ref", "{reason}", {"reason": exc.reason}) from exc
    return value


def _check_source(value: Any) -> SourceArg:
    if isinstance(value, SourceRef | Source):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("string_type", "Input should be a valid string")
    return _check_ref(value)


def _iso_only(value: Any) -> Any:
    # pydantic would also take Unix timestamps ("1700000000"); the API speaks ISO 8601.
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO_DATE_START.match(value):
        return value.strip()
    raise PydanticCustomError(
        "iso_datetime", "expected an ISO 8601 datetime such as 2024-05-01T12:00:00Z"
    )


def _to_utc(value: datetime) -> datetime:
    # An offset can push a representable local time out of datetime's range in UTC
    # (9999-12-31T23:59:59-14:00): that is the request's fault, not the server's.
    try:
        converted = utc(value)
        converted.timestamp()  # the store keeps seconds since the epoch
    except (OverflowError, ValueError) as exc:
        raise PydanticCustomError(
            "datetime_range", "the datetime is out of range once converted to UTC"
        ) from exc
    return converted


def _check_language(value: str) -> str:
    code = value.strip().lower()
    if code not in ISO_639_1:
        raise PydanticCustomError(
            "unknown_language",
            "'{value}' is not an ISO 639-1 language code (two letters, e.g. en, ru, de)",
            {"value": value},
        )
    return code


SourceRefStr = Annotated[str, AfterValidator(_check_ref)]
"""A source reference in any form of DESIGN.md §3, validated and kept as given."""

if TYPE_CHECKING:
    SourceField = SourceArg
else:
    # ``object`` under the validator: pydantic builds no schema of ``Source`` or
    # ``SourceRef`` (the wire knows neither; it carries the text).
    SourceField = Annotated[
        object, PlainValidator(_check_source), WithJsonSchema({"type": "string"})
    ]
"""A request's source: reference text as ``SourceRefStr`` (all the wire carries), or a
parsed ``SourceRef`` or a ``Source`` a toolkit caller already holds."""

UtcDatetime = Annotated[UtcTime, BeforeValidator(_iso_only), AfterValidator(_to_utc)]
"""ISO 8601 datetime, converted to UTC (naive = UTC); serialised as ISO 8601 with ``Z``."""

LanguageCode = Annotated[
    str,
    AfterValidator(_check_language),
    WithJsonSchema({"type": "string", "pattern": "^[A-Za-z]{2}$", "example": "en"}),
]
"""An ISO 639-1 language code, case-insensitive; the validated value is lower case."""

QueryText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"\S"),
]
"""A search query: 1..``MAX_QUERY_CHARS`` characters, not blank."""

StrictCount = Annotated[int, Strict()]
"""A JSON integer (not a boolean, not a float, not a string)."""

StrictFlag = Annotated[bool, Strict()]
"""A JSON boolean (not ``"yes"``, not ``1``)."""

HitLimit = Annotated[StrictCount, Field(ge=1, le=MAX_LIMIT)]
"""Number of hits to return: 1..``MAX_LIMIT``."""

ScanLimit = Annotated[StrictCount, Field(ge=1, le=MAX_SCAN)]
"""Number of recent messages to scan: 1..``MAX_SCAN``."""

TopicId = Annotated[
    StrictCount, Field(ge=1, le=MAX_TOPIC_ID, description="A forum topic's id; General is 1.")
]
"""A forum topic id (the id of its ``topic_created`` message; General is 1)."""

SenderPeerIds = Annotated[
    list[Annotated[str, StringConstraints(pattern=PEER_ID_PATTERN)]],
    Field(
        min_length=1,
        max_length=MAX_SENDERS,
        description="Only messages of these senders: `user123`, `channel123`.",
    ),
]
"""1..100 sender ids as messages carry them (``user123``, ``channel123``, ``chat123``)."""


def check_not_before(
    value: datetime | None, info: ValidationInfo, *, other: str, strict: bool
) -> datetime | None:
    """Body of a ``field_validator`` on the later of two bounds.

    ``other`` names the earlier field, which must be declared first; ``strict`` also
    refuses equal values (``started_at < ended_at``). Raises a validation error that
    names the field being validated, so the 422 names it.
    """
    earlier = info.data.get(other)
    if value is None or earlier is None:
        return value
    if value < earlier or (strict and value == earlier):
        relation = "after" if strict else "at or after"
        raise PydanticCustomError(
            "bounds_order",
            "{field} must be {relation} {other}",
            {"field": info.field_name or "", "relation": relation, "other": other},
        )
    return value


PEER_ID_RE = re.compile(PEER_ID_PATTERN)
"""A sender's peer id as messages carry it: ``user123``, ``channel123``, ``chat123``."""


def check_filters(
    *, topic_id: int | None, sender_peer_ids: Sequence[str] | None
) -> tuple[int | None, list[str] | None]:
    """Check the optional topic and sender filters of a request.

    Returns:
        The topic id, and the sender ids without repeats (``None``: no sender filter).

    Raises:
        InvalidRequest: a topic id that is not a positive integer (``field="topic_id"``),
            or a sender id that is not ``user<id>``/``channel<id>``/``chat<id>``, or more
            than ``MAX_SENDERS`` of them (``field="sender_peer_ids"``).
    """
    if topic_id is not None and (
        isinstance(topic_id, bool)
        or not isinstance(topic_id, int)
        or not 1 <= topic_id <= MAX_TOPIC_ID
    ):
        raise InvalidRequest(
            f"topic_id must be an integer in 1..{MAX_TOPIC_ID}, got {topic_id!r}",
            field="topic_id",
        )
    if sender_peer_ids is None:
        return topic_id, None
    if isinstance(sender_peer_ids, str):
        sender_peer_ids = [sender_peer_ids]
    senders = list(dict.fromkeys(str(s).strip() for s in sender_peer_ids))
    if not senders or len(senders) > MAX_SENDERS:
        raise InvalidRequest(
            f"sender_peer_ids must list 1..{MAX_SENDERS} senders, got {len(senders)}",
            field="sender_peer_ids",
        )
    bad = [s for s in senders if not PEER_ID_RE.match(s)]
    if bad:
        raise InvalidRequest(
            f"sender ids look like 'user123' or 'channel123', not {bad[0]!r}",
            field="sender_peer_ids",
        )
    return topic_id, senders
