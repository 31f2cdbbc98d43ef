"""What only the PostgreSQL store has: its migrations, COPY imports, the shared rate buckets,
and ``open_store`` choosing it. The behaviour both stores share is in ``test_store.py``."""

from __future__ import annotations

import json
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from store_backends import half_piped_import

from benchmarks.synthetic import write_export
from toolkit.config import Settings
from toolkit.errors import ConfigError, ImportFormatError, StoreError
from toolkit.ingest import import_export
from toolkit.models import Message, SourceKind, UpsertResult
from toolkit.store import SQLiteStore, open_store
from toolkit.store.migrations import migration_names
from toolkit.store.postgres import PostgresDialect, PostgresStore

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def test_migrations_are_recorded_once_even_when_processes_open_together(pg_url: str) -> None:
    errors: list[BaseException] = []

    def open_close() -> None:
        try:
            PostgresStore(pg_url, pool_size=1).close()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_close) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(pg_url) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY applied_at")]
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes")}
    assert names == migration_names(PostgresDialect(pg_url))
    assert {"messages_by_time", "messages_by_topic", "messages_by_sender"} <= indexes


def _batch(source_id: int, rng: random.Random, n: int) -> list[Message]:
    """Random messages with repeated ids, edits and same-content copies."""
    out = []
    for _ in range(n):
        mid = rng.randint(1, 40)
        edited = rng.choice([None, 1, 2, 3])
        out.append(
            Message(
                source_id,
                mid,
                T0 + timedelta(minutes=mid),
                rng.choice(["a", "b", "c"]) + str(mid),
                edited_at=None if edited is None else T0 + timedelta(hours=edited),
                sender_peer_id=rng.choice(["u1", "u2"]),
            )
        )
    return out


def test_copy_import_counts_and_stores_exactly_what_sqlite_does(pg_url: str) -> None:
    pg, lite = PostgresStore(pg_url), SQLiteStore(":memory:")
    try:
        sources = [
            s.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=9) for s in (pg, lite)
        ]
        assert sources[0].id == sources[1].id
        rng = random.Random(7)
        for _ in range(6):
            batch = _batch(sources[0].id, rng, 60)
            assert pg.upsert_messages(batch) == lite.upsert_messages(batch)
        assert list(pg.iter_messages(sources[0].id)) == list(lite.iter_messages(sources[1].id))
    finally:
        pg.close()
        lite.close()


def test_a_failing_import_leaves_nothing(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        source = store.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=1)
        good = [Message(source.id, i, T0, f"m{i}") for i in range(1, 2001)]
        orphan = [Message(source.id + 99, 1, T0, "no such source")]
        with pytest.raises(StoreError):
            store.upsert_messages(good + orphan)
        assert store.count_messages(source.id) == 0

        def two_batches() -> None:
            with store.transaction():
                store.upsert_messages(good[:1000])
                store.upsert_messages(good[1000:] + orphan)

        with pytest.raises(StoreError):
            two_batches()
        assert store.count_messages(source.id) == 0
        assert store.upsert_messages(good) == UpsertResult(2000, 0, 0)
    finally:
        store.close()


def test_two_stores_share_one_token_bucket(pg_url: str) -> None:
    first, second = PostgresStore(pg_url, pool_size=1), PostgresStore(pg_url, pool_size=1)
    try:
        outcomes = [
            (first if i % 2 else second).take_rate_token("key", per_minute=6, burst=4)
            for i in range(7)
        ]
        assert outcomes[:4] == [None] * 4
        waits = outcomes[4:]
        assert all(w is not None and 0 < w <= 10.0 for w in waits)
        assert first.take_rate_token("other", per_minute=6, burst=4) is None
    finally:
        first.close()
        second.close()


def test_open_store_picks_postgres_from_the_url_and_writes_no_file(
    pg_url: str, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", database={"url": pg_url})
    store = open_store(settings)
    try:
        assert isinstance(store, PostgresStore)
        store.cache_put("k", "v")
    finally:
        store.close()
    assert not (tmp_path / "data").exists()
    assert isinstance(open_store(Settings(data_dir=tmp_path)), SQLiteStore)
    with pytest.raises(ConfigError, match="postgresql://"):
        open_store(Settings(database={"url": "mysql://x@localhost/db"}))


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot open") as info:
        PostgresStore("postgresql://me:s3cret@127.0.0.1:1/none", pool_size=1, connect_timeout=0.5)
    assert "s3cret" not in str(info.value)


def test_imports_take_turns_across_stores(pg_url: str) -> None:
    first, second = PostgresStore(pg_url, pool_size=2), PostgresStore(pg_url, pool_size=2)
    waited: list[str] = []
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with first.staging() as sink:
            sink.upsert_source(title="A", kind=SourceKind.CHAT, internal_id=1)
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(10)
        threading.Timer(0.3, release.set).start()
        with second.staging(on_wait=waited.append) as sink:
            # The first import has committed by the time the second may write.
            assert second.list_sources()[0].source.title == "A"
            sink.upsert_source(title="B", kind=SourceKind.CHAT, internal_id=2)
        assert waited == ["waiting for another import to finish…"]
    finally:
        release.set()
        holder.join()
        first.close()
        second.close()


@pytest.mark.slow
def test_a_staged_import_lets_other_writers_work_and_lands_whole(
    pg_url: str, tmp_path: Path
) -> None:
    """While the export comes through a pipe, other writers (on the same source too) go
    on and the import is invisible; then it lands whole, with the counts SQLite gives."""
    store = PostgresStore(pg_url)
    lite = SQLiteStore(tmp_path / "s.sqlite3")
    path = write_export(tmp_path / "e.json", 3000)
    text = path.read_bytes()
    chat_id = json.loads(text)["id"]
    try:
        early = store.upsert_source(title="Load test", kind=SourceKind.CHAT, internal_id=chat_id)
        with half_piped_import(store, text, tmp_path / "pipe.json") as result:
            time.sleep(0.5)
            store.cache_put("during", "the import")
            store.set_watermark(early.id, 7, T0)  # a sync of the same source is not held
            assert store.count_messages(early.id) == 0  # the import is not visible yet
        (report,) = result
        assert store.count_messages(early.id) == 3000
        assert store.get_watermark(early.id) == 7
        assert report.sources[0].source.id == early.id
        assert report.total == import_export(lite, path).total
        assert import_export(store, path).total == import_export(lite, path).total
    finally:
        store.close()
        lite.close()


def test_a_broken_import_leaves_nothing_and_keeps_no_staging(pg_url: str, tmp_path: Path) -> None:
    store = PostgresStore(pg_url, pool_size=1)
    text = write_export(tmp_path / "e.json", 500).read_text()
    broken = tmp_path / "broken.json"
    broken.write_text(text[: len(text) * 2 // 3])
    try:
        with pytest.raises(ImportFormatError):
            import_export(store, broken)
        assert store.list_sources() == []
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT COUNT(*) FROM messages").fetchone() == (0,)
        report = import_export(store, tmp_path / "e.json")  # the same pooled session
        assert report.total.inserted == 500
    finally:
        store.close()


def test_a_connection_killed_by_the_server_is_replaced(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=1)
    try:
        store.cache_put("k", "v")
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'mlens'"
            )
        assert store.cache_get("k") == "v"  # answered on a fresh connection
    finally:
        store.close()
