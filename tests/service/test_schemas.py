"""Shared validators: source refs, UTC datetimes, ISO 639-1 codes, bounds and their order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator

from toolkit.errors import InvalidRequest
from toolkit.requests import SearchRequest, SourceSummaryRequest
from toolkit.requests.fields import (
    HitLimit,
    LanguageCode,
    QueryText,
    ScanLimit,
    SourceRefStr,
    UtcDatetime,
    check_not_before,
)


class Probe(BaseModel):
    source_ref: SourceRefStr
    query: QueryText = "x"
    limit: HitLimit = 20
    scan_messages_limit: ScanLimit = 200
    language: LanguageCode = "en"
    started_at: UtcDatetime | None = None
    ended_at: UtcDatetime | None = None

    @field_validator("ended_at")
    @classmethod
    def _after_start(cls, value: datetime | None, info: ValidationInfo) -> datetime | None:
        return check_not_before(value, info, other="started_at", strict=True)


def failing_fields(**data: Any) -> set[str]:
    with pytest.raises(ValidationError) as caught:
        Probe(source_ref="@lens_public", **data)
    return {".".join(map(str, e["loc"])) for e in caught.value.errors()}


def test_source_ref_is_kept_exactly_as_given() -> None:
    assert Probe(source_ref="https://T.me/Lens_Public/12?single").source_ref == (
        "https://T.me/Lens_Public/12?single"
    )
    with pytest.raises(ValidationError, match="invite links"):
        Probe(source_ref="t.me/joinchat/abc")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T15:00:00+03:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),  # naive = UTC
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
    ],
)
def test_datetimes_become_utc(raw: str, expected: datetime) -> None:
    value = Probe(source_ref="@lens_public", started_at=raw).started_at
    assert value == expected
    assert value is not None
    assert value.utcoffset() is not None


def test_datetimes_serialise_with_z() -> None:
    probe = Probe(source_ref="@lens_public", started_at="2024-05-01T15:30:00+03:00")
    assert probe.model_dump(mode="json")["started_at"] == "2024-05-01T12:30:00Z"


@pytest.mark.parametrize("raw", ["1714564800", "yesterday", "2024-13-01T00:00:00", 1714564800])
def test_non_iso_datetimes_are_refused(raw: Any) -> None:
    assert failing_fields(started_at=raw) == {"started_at"}


def test_language_codes() -> None:
    assert Probe(source_ref="@lens_public", language="RU").language == "ru"
    for bad in ("xx", "eng", "en-US", ""):
        assert failing_fields(language=bad) == {"language"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   \n"}, "query"),
        ({"query": "x" * 1001}, "query"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"scan_messages_limit": 0}, "scan_messages_limit"),
        ({"scan_messages_limit": 10001}, "scan_messages_limit"),
    ],
)
def test_bounds(data: dict[str, Any], field: str) -> None:
    assert failing_fields(**data) == {field}


def test_bounds_accept_their_edges() -> None:
    probe = Probe(source_ref="@lens_public", query="x" * 1000, limit=100, scan_messages_limit=10000)
    assert (probe.limit, probe.scan_messages_limit) == (100, 10000)


def test_order_of_bounds_names_the_later_field() -> None:
    start = "2024-05-02T00:00:00Z"
    assert failing_fields(started_at=start, ended_at="2024-05-01T00:00:00Z") == {"ended_at"}
    assert failing_fields(started_at=start, ended_at=start) == {"ended_at"}  # strict
    ok = Probe(source_ref="@lens_public", started_at=start, ended_at="2024-05-02T00:00:01Z")
    assert ok.ended_at is not None


@pytest.fixture
def probe_client(app: FastAPI) -> Iterator[TestClient]:
    @app.post("/_test/probe")
    def probe(body: Probe) -> Probe:
        return body

    with TestClient(app) as client:
        yield client


def test_over_http_a_422_names_every_bad_field(probe_client: TestClient) -> None:
    response = probe_client.post(
        "/_test/probe",
        json={
            "source_ref": "@ab",
            "limit": 500,
            "language": "klingon",
            "started_at": "2024-05-02T00:00:00Z",
            "ended_at": "2024-05-01T00:00:00+02:00",
        },
    )
    assert response.status_code == 422
    fields = {e["field"] for e in response.json()["errors"]}
    assert fields == {"source_ref", "limit", "language", "ended_at"}


def test_over_http_times_come_back_in_utc_with_z(probe_client: TestClient) -> None:
    response = probe_client.post(
        "/_test/probe",
        json={"source_ref": "@lens_public", "started_at": "2024-05-01T09:00:00+09:00"},
    )
    assert response.status_code == 200
    assert response.json()["started_at"] == "2024-05-01T00:00:00Z"


def test_a_body_cannot_choose_the_engine_or_the_cache() -> None:
    body = {"source_ref": "@team_chat", "language": "en", "engine": "llm", "use_cache": False}
    over_http = SourceSummaryRequest.model_validate(body)
    assert (over_http.engine, over_http.use_cache) == (None, True)
    made = SourceSummaryRequest(**body)
    assert (made.engine, made.use_cache) == ("llm", False)


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"limit": 0}, "limit"), ({"query": " "}, "query"), ({"source_ref": "a b"}, "source_ref")],
)
def test_a_toolkit_caller_gets_the_toolkits_error_naming_the_field(
    fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        SearchRequest(**{"source_ref": "@team_chat", "query": "deploy", **fields})
    assert caught.value.field == field
