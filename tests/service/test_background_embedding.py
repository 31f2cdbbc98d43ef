"""The service answers at once and embeds in the background: a search meanwhile says how
much of its window had a vector (headers), and ``/healthz`` shows the progress."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from search_reference import BagOfWordsEmbedder

from service.app import create_app
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.models import Message, SourceKind


class Gated(BagOfWordsEmbedder):
    """Embeds passages only once ``gate`` is set."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        assert self.gate.wait(60), "the test never opened the gate"
        return super().embed_passages(texts)


def until(client: TestClient, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Poll /healthz until ``check`` holds (a generous bound, not a timing check)."""
    bound = time.monotonic() + 60
    while True:
        health = client.get("/healthz").json()
        if check(health):
            return health
        assert time.monotonic() < bound, health
        time.sleep(0.02)


@pytest.fixture
def background_settings(settings: Settings) -> Settings:
    return settings.replace(service={"background_embedding": True})


def test_search_during_and_after_background_embedding(background_settings: Settings) -> None:
    embedder = Gated()
    app = create_app(background_settings, embedder=embedder)
    store = app.state.service.workspace.store
    source = store.upsert_source(title="Bg", kind=SourceKind.CHAT, handle="bg_chat")
    store.upsert_messages(
        Message(source.id, i, datetime(2026, 1, 1, 9, i, tzinfo=UTC), text)
        for i, text in enumerate(
            ["the hotel is booked", "train tickets bought", "ok", "rain on saturday"] * 10, 1
        )
    )
    token, _ = create_api_key(store, name="t", scopes=["search.read"])
    headers = {"Authorization": f"Bearer {token}"}
    body = {"source_ref": "@bg_chat", "query": "hotel booked"}
    with TestClient(app) as client:  # the lifespan starts the background embedding
        health = until(client, lambda h: h["embedding"]["state"] == "embedding")
        assert health["embedding"] == {"state": "embedding", "embedded": 0, "queued": 40}

        early = client.post("/v1/search/messages", json=body, headers=headers)
        assert early.status_code == 200, early.text
        assert (early.headers["MLens-Scanned"], early.headers["MLens-Embedded"]) == ("40", "0")
        assert early.json()["items"][0]["text"] == "the hotel is booked"  # by its words

        embedder.gate.set()
        health = until(client, lambda h: h["embedding"]["state"] == "done")
        assert health["embedding"] == {"state": "done", "embedded": 40, "queued": 40}
        late = client.post("/v1/search/messages", json=body, headers=headers)
        assert (late.headers["MLens-Scanned"], late.headers["MLens-Embedded"]) == ("40", "40")
        assert late.json()["items"][0]["text"] == "the hotel is booked"


def test_without_background_embedding_health_has_no_progress(
    client: TestClient, auth: Callable[..., dict[str, str]], sources: Any
) -> None:
    assert "embedding" not in client.get("/healthz").json()
    answer = client.post(
        "/v1/search/messages", json={"source_ref": "@lens_public", "query": "post"}, headers=auth()
    )
    assert (answer.headers["MLens-Scanned"], answer.headers["MLens-Embedded"]) == ("5", "5")
