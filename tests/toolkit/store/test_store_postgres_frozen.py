"""A PostgreSQL server that stops answering (its processes stopped with ``SIGSTOP``, not
dead): a statement waiting for it ends within the store's answer time, a slow statement
on a live server is left alone, a statement past its deadline is cancelled, and the
store works again once the server continues (``SIGCONT``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import closing

import psycopg
import pytest

from benchmarks.pg_server import PgServer
from toolkit.errors import StoreError, StoreTimeout
from toolkit.models import SourceKind
from toolkit.store.pg_liveness import TCP_USER_TIMEOUT_MS
from toolkit.store.postgres import PostgresStore


@pytest.fixture
def own_pg() -> Iterator[PgServer]:
    """A PostgreSQL server of this test's own: it is frozen and thawed mid-test."""
    with PgServer() as server:
        yield server


def _seeded(url: str, **options: float | None) -> PostgresStore:
    store = PostgresStore(url, pool_size=2, **options)  # type: ignore[arg-type]
    store.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=1)
    return store


@pytest.mark.slow
def test_a_frozen_server_ends_statements_within_the_answer_time_and_recovers(
    own_pg: PgServer,
) -> None:
    with closing(_seeded(own_pg.create_database("frozen"))) as store:
        assert len(store.list_sources()) == 1  # a pooled connection, opened before
        own_pg.freeze()
        try:
            for _ in range(2):  # a pooled connection, then a new one
                started = time.monotonic()
                with pytest.raises(StoreError):
                    store.list_sources()
                assert time.monotonic() - started < 3
            started = time.monotonic()
            with pytest.raises(StoreError):
                store.check_health(0.5)
            assert time.monotonic() - started < 3
        finally:
            own_pg.thaw()
        assert len(store.list_sources()) == 1
        store.check_health(0.5)


@pytest.mark.slow
def test_a_statement_in_flight_when_the_server_freezes_is_a_store_timeout(
    own_pg: PgServer,
) -> None:
    outcome: list[BaseException | float] = []
    with closing(_seeded(own_pg.create_database("inflight"))) as store:

        def slow_read() -> None:
            started = time.monotonic()
            try:
                store.connections.read("SELECT pg_sleep(5)")
            except BaseException as exc:
                outcome.append(exc)
            outcome.append(time.monotonic() - started)

        reader = threading.Thread(target=slow_read)
        reader.start()
        time.sleep(0.5)  # the statement is in the server's hands
        own_pg.freeze()
        try:
            reader.join(10)
        finally:
            own_pg.thaw()
        error, took = outcome
        assert isinstance(error, StoreTimeout)
        assert "did not answer within 2 s" in str(error)
        assert isinstance(took, float)
        assert took < 3.5
        assert len(store.list_sources()) == 1  # the ended connection was dropped


@pytest.mark.slow
def test_a_slow_statement_on_a_live_server_runs_past_the_answer_time(pg_url: str) -> None:
    with closing(PostgresStore(pg_url, pool_size=1, connect_timeout=1.0)) as store:
        # 1.5 s is past the 1 s answer time: the server answers the probe, so it goes on.
        assert store.connections.read("SELECT pg_sleep(1.5), 7")[0][1] == 7


@pytest.mark.slow
def test_a_statement_past_its_deadline_is_cancelled_on_the_server(pg_url: str) -> None:
    with closing(PostgresStore(pg_url, pool_size=1, statement_timeout=1.0)) as store:
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"statement timeout|deadline"):
            store.connections.read("SELECT pg_sleep(10)")
        assert time.monotonic() - started < 5
        assert store.connections.read("SELECT 1") == [(1,)]  # the same session goes on
        with store.connections.dedicated():  # an import's session has no deadline
            assert store.connections.read("SHOW statement_timeout") == [("0",)]
            assert store.connections.read("SELECT pg_sleep(1.2), 1")[0][1] == 1
        assert store.connections.read("SHOW statement_timeout") == [("1s",)]


def test_every_connection_has_keepalives_and_a_tcp_user_timeout(pg_url: str) -> None:
    with closing(PostgresStore(pg_url, pool_size=1)) as store:
        store.list_sources()
        with store.connections.writers.take() as conn:
            assert isinstance(conn, psycopg.Connection)
            info = {p.keyword.decode(): (p.val or b"").decode() for p in conn.pgconn.info}
        assert info["keepalives"] == "1"
        assert info["tcp_user_timeout"] == str(TCP_USER_TIMEOUT_MS)
        assert int(info["keepalives_idle"]) > 0
        assert store.connections.read("SHOW statement_timeout") == [("30s",)]
