"""What a request may not do: outlive its deadline, or wait for a store write.

- A request still working after ``MLENS_REQUEST_TIMEOUT_SECONDS`` is answered with a 503
  problem at once, and the service goes on serving (issue 11, item 1).
- Authentication records "key last used" through a background writer: a request
  answers while that write is stuck, and the stamp lands afterwards (issue 11, item 3).
- With another connection holding SQLite's write lock (an import in another process),
  metadata and search requests still answer 200: a read route writes nothing itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from deadline_apps import CheckingSearcher, hasty_app
from fastapi.testclient import TestClient

from service.app import create_app
from service.keystamps import KeyStamps
from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.errors import DeadlineExceeded
from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.base import MessageStore

SEARCH = "/v1/search/messages"


class StuckSearcher:
    """A searcher whose search waits until released (at most ``limit`` seconds)."""

    def __init__(self, limit: float = 20.0) -> None:
        self.release = threading.Event()
        self.limit = limit

    def search(self, request: Any) -> list[Any]:
        self.release.wait(self.limit)
        return []


@pytest.mark.slow
def test_request_past_its_deadline_is_a_503_problem(
    settings: Settings, auth: Callable[..., dict[str, str]]
) -> None:
    stuck = StuckSearcher()
    app, token = hasty_app(settings, stuck, 0.5)
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with TestClient(app) as client:
            response = client.post(
                SEARCH, json={"source_ref": "@lens_public", "query": "q"}, headers=headers
            )
            assert response.status_code == 503, response.text
            assert response.headers["content-type"] == "application/problem+json"
            body = response.json()
            assert body["type"].endswith("deadline-exceeded")
            assert "0.5 s" in body["detail"]
            assert client.get("/healthz").status_code == 200  # still serving
    finally:
        stuck.release.set()


def test_work_past_the_deadline_stops_at_its_next_check(
    settings: Settings, auth: Callable[..., dict[str, str]]
) -> None:
    worker = CheckingSearcher()
    # A second of room: on a loaded machine a shorter deadline can pass before the search
    # starts (a 503 too, but not the stop this test is about).
    app, token = hasty_app(settings, worker, 1.0)
    with TestClient(app) as client:
        response = client.post(
            SEARCH,
            json={"source_ref": "@lens_public", "query": "q"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 503
        assert worker.stopped.wait(10)  # not after its 20 s: the work itself stopped
    assert isinstance(worker.error, DeadlineExceeded)


class StuckStamps:
    """A store whose ``touch_api_key`` waits until released; everything else passes."""

    def __init__(self, inner: MessageStore) -> None:
        self.inner = inner
        self.release = threading.Event()
        self.stamped: list[int] = []

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        self.release.wait(20)
        self.inner.touch_api_key(key_id, when)
        self.stamped.append(key_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_authentication_never_waits_for_the_last_used_write(settings: Settings) -> None:
    inner = SQLiteStore(":memory:")
    store = StuckStamps(inner)
    inner.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="lens_public")
    token, record = create_api_key(inner, name="k", scopes={"sources.read"})
    app = create_app(settings, store=store)  # type: ignore[arg-type]
    try:
        with TestClient(app) as client:
            response = client.get(
                "/v1/sources/by-ref",
                params={"source_ref": "@lens_public"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert response.status_code == 200  # answered while the stamp is stuck
            assert store.stamped == []
            store.release.set()
            state_of(app).key_stamps.flush()
        assert store.stamped == [record.id]
        (stored,) = [r for r in inner.list_api_keys() if r.id == record.id]
        assert stored.last_used_at is not None
    finally:
        store.release.set()
        inner.close()


class BusyWriter:
    """A store whose background writer holds every task until ``run`` (or refuses)."""

    def __init__(self, *, accept: bool = True) -> None:
        self.accept = accept
        self.tasks: list[Callable[[], object]] = []
        self.stamped: list[int] = []

    def write_behind(self, task: Callable[[], object]) -> bool:
        if self.accept:
            self.tasks.append(task)
        return self.accept

    def touch_api_key(self, key_id: int, when: datetime) -> None:
        self.stamped.append(key_id)

    def run(self) -> None:
        while self.tasks:
            self.tasks.pop(0)()


def test_one_stamp_per_key_in_flight() -> None:
    store = BusyWriter()
    stamps = KeyStamps(store)  # type: ignore[arg-type]
    now = datetime.now(UTC)
    for key_id in (1, 1, 2, 1, 2):
        stamps.submit(key_id, now)
    assert len(store.tasks) == 2  # a burst of one key's requests queues one write
    store.run()
    assert store.stamped == [1, 2]
    stamps.submit(1, now)  # written: the next use may stamp again
    store.run()
    assert store.stamped == [1, 2, 1]


def test_stamps_are_dropped_when_the_writer_is_busy() -> None:
    store = BusyWriter(accept=False)
    stamps = KeyStamps(store)  # type: ignore[arg-type]
    now = datetime.now(UTC)
    stamps.submit(1, now)
    stamps.submit(1, now)  # not stuck as "pending": tried again, dropped again
    assert stamps.dropped == 2
    assert store.stamped == []


def test_reads_answer_while_another_process_holds_the_write_lock(
    settings: Settings, tmp_path: Any, embedder: Any
) -> None:
    path = str(tmp_path / "mlens.sqlite3")
    store = SQLiteStore(path)
    source = store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="lens_public")
    store.upsert_messages(
        [Message(source.id, i, datetime(2024, 3, i, tzinfo=UTC), f"post {i}") for i in (1, 2, 3)]
    )
    token, record = create_api_key(store, name="k", scopes={"search.read", "sources.read"})
    headers = {"Authorization": f"Bearer {token}"}
    # Another connection (as an import in another process would) takes the write lock.
    holder = SQLiteStore(path)
    locked, release = threading.Event(), threading.Event()
    waited_out: list[bool] = []

    def hold() -> None:
        with holder.transaction():
            holder.upsert_source(title="Busy", kind=SourceKind.CHANNEL, handle="busy_writer")
            locked.set()
            waited_out.append(not release.wait(30))

    thread = threading.Thread(target=hold)
    thread.start()
    app = create_app(settings, store=store, embedder=embedder)
    try:
        assert locked.wait(10)
        with TestClient(app) as client:
            info = client.get(
                "/v1/sources/by-ref", params={"source_ref": "@lens_public"}, headers=headers
            )
            found = client.post(
                SEARCH, json={"source_ref": "@lens_public", "query": "post"}, headers=headers
            )
            # Both answered while the lock was held: neither waited for a write.
            assert (info.status_code, found.status_code) == (200, 200), (info.text, found.text)
            assert len(found.json()["items"]) == 3
            release.set()
            thread.join()
            store.flush_writes()
        assert waited_out == [False]
        (stored,) = [r for r in store.list_api_keys() if r.id == record.id]
        assert stored.last_used_at is not None  # the stamp landed once the lock was free
    finally:
        release.set()
        thread.join()
        holder.close()
        store.close()
