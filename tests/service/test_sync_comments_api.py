"""``POST /v1/sources/by-ref/sync`` with ``with_comments``: comments land in the group."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from telethon_fakes import DISCUSSION, commented_news

from service.deps import get_messenger_client_factory
from toolkit.ingest.live.client import TelethonMessengerClient


def test_sync_with_comments_stores_them_in_the_discussion_group(
    app: FastAPI, client: TestClient, auth: Any
) -> None:
    fake = commented_news()
    app.dependency_overrides[get_messenger_client_factory] = lambda: (
        lambda: TelethonMessengerClient(fake)
    )
    headers = auth("sources.write", "sources.read")
    body = {"source_ref": "@dailynews", "with_comments": True}
    response = client.post("/v1/sources/by-ref/sync", json=body, headers=headers)
    assert response.status_code == 200, response.text
    assert (response.json()["fetched"], response.json()["comments"]) == (4, 6)
    group = client.get(
        "/v1/sources/by-ref", params={"source_ref": f"c/{DISCUSSION.id}"}, headers=headers
    )
    assert group.status_code == 200, group.text
    assert group.json()["message_count"] == 6


def test_with_comments_must_be_a_boolean(client: TestClient, auth: Any) -> None:
    body = {"source_ref": "@lens_public", "with_comments": "yes"}
    response = client.post("/v1/sources/by-ref/sync", json=body, headers=auth("sources.write"))
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
