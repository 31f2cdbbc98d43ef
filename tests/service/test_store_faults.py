"""Store faults fail fast and truthfully: PostgreSQL stopped and started mid-run, an SQLite
file with overwritten pages, a health check that cannot hang."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from chat_fixture import HANDLE, seed_trip
from fastapi.testclient import TestClient

from benchmarks.pg_server import PgServer
from service.app import create_app
from service.problems import PROBLEM_JSON
from toolkit.config import Settings
from toolkit.embeddings import Embedder
from toolkit.store import SQLiteStore

SEARCH = {"source_ref": HANDLE, "query": "train tickets to Berlin", "limit": 3}


def _timed(client: TestClient, method: str, path: str, **kwargs: object) -> tuple[int, float, str]:
    started = time.monotonic()
    response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
    return response.status_code, time.monotonic() - started, response.headers["content-type"]


@pytest.fixture
def own_pg() -> Iterator[PgServer]:
    """A PostgreSQL server of this test's own: it is stopped and started mid-test."""
    with PgServer() as server:
        yield server


@contextmanager
def _served_pg(
    own_pg: PgServer, name: str, embedder: Embedder, tmp_path: Path
) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """A client of the service over a new database ``name`` of ``own_pg`` (the trip chat,
    searched three times so that the pool holds connections), and a key's header."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path / "data",
        database={"url": own_pg.create_database(name)},
        service={"rate_limit_per_minute": 0, "auth_failures_per_minute": 0},
    )
    token = seed_trip(settings, tmp_path, embedder=embedder)
    auth = {"Authorization": f"Bearer {token}"}
    app = create_app(settings, embedder=embedder)
    with TestClient(app, raise_server_exceptions=False) as client:
        for _ in range(3):  # the pool holds connections opened before the fault
            assert client.post("/v1/search/messages", json=SEARCH, headers=auth).status_code == 200
        assert client.get("/healthz").status_code == 200
        yield client, auth


def _assert_store_down(client: TestClient, auth: dict[str, str], *, searches: int) -> None:
    """Each search is a 503 problem within 3 s, and /healthz one within 1.5 s naming the store."""
    for _ in range(searches):
        status, took, kind = _timed(
            client, "POST", "/v1/search/messages", json=SEARCH, headers=auth
        )
        assert (status, kind) == (503, PROBLEM_JSON)
        assert took < 3
    status, took, kind = _timed(client, "GET", "/healthz")
    assert (status, kind) == (503, PROBLEM_JSON)
    assert took < 1.5
    assert "store" in client.get("/healthz").json()["detail"]


def _searches(client: TestClient, auth: dict[str, str], n: int) -> list[int]:
    return [
        client.post("/v1/search/messages", json=SEARCH, headers=auth).status_code for _ in range(n)
    ]


@pytest.mark.slow
def test_postgres_stopped_and_started_mid_run(
    own_pg: PgServer, embedder: Embedder, tmp_path: Path
) -> None:
    with _served_pg(own_pg, "faults", embedder, tmp_path) as (client, auth):
        own_pg.halt()
        _assert_store_down(client, auth, searches=1)

        own_pg.resume()
        # Every pooled connection died with the old server: none fails a request now.
        assert _searches(client, auth, 6) == [200] * 6
        assert client.get("/healthz").status_code == 200


@pytest.mark.slow
def test_postgres_frozen_and_continued_mid_run(
    own_pg: PgServer, embedder: Embedder, tmp_path: Path
) -> None:
    """Its processes stopped (SIGSTOP), the server accepts connections and answers
    nothing: a request is a 503 problem within 3 s, /healthz says the store is down,
    and everything answers again once the processes continue (SIGCONT)."""
    with _served_pg(own_pg, "frozen", embedder, tmp_path) as (client, auth):
        own_pg.freeze()
        try:
            _assert_store_down(client, auth, searches=2)
        finally:
            own_pg.thaw()

        deadline = time.monotonic() + 10  # a health question asked while frozen finishes
        while client.get("/healthz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.get("/healthz").status_code == 200
        assert _searches(client, auth, 4) == [200] * 4


def _overwrite_pages(path: Path, pages: list[int]) -> None:
    with path.open("r+b") as f:
        for page in pages:
            f.seek(page * 4096)
            f.write(b"\xa5" * 4096)


def _damaged_store(tmp_path: Path, embedder: Embedder) -> tuple[Settings, str]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path / "data",
        service={"rate_limit_per_minute": 0},
    )
    token = seed_trip(settings, tmp_path, embedder=embedder)
    path = Path(settings.database_path)
    pages = path.stat().st_size // 4096
    _overwrite_pages(path, list(range(2, pages)))  # everything but the schema page
    return settings, token


@pytest.mark.slow
def test_an_sqlite_store_with_overwritten_pages_is_503_and_unhealthy_never_500(
    tmp_path: Path, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    settings, token = _damaged_store(tmp_path, embedder)
    app = create_app(settings, embedder=embedder)
    with TestClient(app, raise_server_exceptions=False) as client:
        health = client.get("/healthz")
        assert health.status_code == 503
        assert "damaged" in health.json()["detail"]
        auth = {"Authorization": f"Bearer {token}"}
        statuses = {client.post("/v1/search/messages", json=SEARCH, headers=auth).status_code}
        statuses.add(client.get("/v1/sources/by-ref", params={"source_ref": HANDLE}).status_code)
        assert 500 not in statuses
        assert client.get("/healthz").status_code == 503
    damage = [r for r in caplog.records if "is damaged" in r.getMessage()]
    assert len(damage) == 1  # one line, however many requests met the damage
    line = damage[0].getMessage()
    assert settings.database_path in line
    assert ".recover" in line
    assert "\n" not in line


class SlowStore(SQLiteStore):
    """A store whose health check takes far longer than any health timeout."""

    def check_health(self, budget_s: float) -> None:
        """Answer, but only after 3 s."""
        time.sleep(3)


@pytest.mark.slow
def test_healthz_answers_within_its_timeout_when_the_store_does_not(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    store = SlowStore(tmp_path / "slow.sqlite3")
    try:
        with TestClient(create_app(settings, store=store)) as client:
            for _ in range(3):  # later checks wait for the one still out, no longer
                status, took, kind = _timed(client, "GET", "/healthz")
                assert (status, kind) == (503, PROBLEM_JSON)
                assert took < 1.5
    finally:
        store.close()


def test_an_empty_store_file_is_refused_by_serve_and_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from cli.app import app
    from cli.state import reset

    empty = tmp_path / "mlens.sqlite3"
    empty.touch()
    monkeypatch.setenv("MLENS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("MLENS_DATABASE", raising=False)
    reset()
    try:
        result = CliRunner().invoke(app, ["serve", "--port", "1"])
    finally:
        reset()
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "empty file (0 bytes)" in lines[0]
    assert str(empty) in lines[0]
    assert empty.stat().st_size == 0
    assert os.listdir(tmp_path) == ["mlens.sqlite3"]


@pytest.mark.slow
def test_store_errors_are_logged_once_per_kind_not_as_tracebacks(
    tmp_path: Path, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    settings, _ = _damaged_store(tmp_path, embedder)
    app = create_app(settings, embedder=embedder)
    with TestClient(app, raise_server_exceptions=False) as client:
        for _ in range(5):
            client.get("/healthz")
    assert not [r for r in caplog.records if r.exc_info]
