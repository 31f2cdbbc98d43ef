"""Shared request/response building blocks of the /v1 API (DESIGN.md §3 Bounds and Time).

Annotated types carry the validation, so that every failure is a FastAPI validation
error naming its field (a 422 problem):

- ``SourceRefStr``: a string ``toolkit.refs.parse_ref`` accepts, kept exactly as given
  (responses echo it).
- ``UtcDatetime``: ISO 8601 in (an offset is converted to UTC, a naive value is UTC),
  ISO 8601 UTC with ``Z`` out.
- ``LanguageCode``: a known ISO 639-1 code, case-insensitive, lower-cased.
- ``QueryText``, ``HitLimit``, ``ScanLimit``: the bounds of the search request.
- ``StrictCount``, ``StrictFlag``, ``StrictNumber``: JSON types taken as they are
  (``true`` is no integer, ``"yes"`` no boolean, ``false`` no number).
- ``check_not_before``: a field validator body for "this bound is not before that one".
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    Strict,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from toolkit.errors import InvalidSourceRef
from toolkit.models import utc
from toolkit.refs import parse_ref
from toolkit.requests import MAX_SENDERS, MAX_TOPIC_ID, PEER_ID_RE
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
    StringConstraints(min_length=1, max_length=1000, pattern=r"\S"),
]
"""A search query: 1..1000 characters, not blank."""

StrictCount = Annotated[int, Strict()]
"""A JSON integer (not a boolean, not a float, not a string)."""

StrictFlag = Annotated[bool, Strict()]
"""A JSON boolean (not ``"yes"``, not ``1``)."""

StrictNumber = Annotated[float, Strict(), Field(allow_inf_nan=False)]
"""A finite JSON number (an integer is fine; a boolean or a string is not)."""

HitLimit = Annotated[StrictCount, Field(ge=1, le=100)]
"""Number of hits to return: 1..100."""

ScanLimit = Annotated[StrictCount, Field(ge=1, le=10000)]
"""Number of recent messages to scan: 1..10000."""

TopicId = Annotated[
    StrictCount, Field(ge=1, le=MAX_TOPIC_ID, description="A forum topic's id; General is 1.")
]
"""A forum topic id (the id of its ``topic_created`` message; General is 1)."""

SenderPeerIds = Annotated[
    list[Annotated[str, StringConstraints(pattern=PEER_ID_RE.pattern)]],
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
