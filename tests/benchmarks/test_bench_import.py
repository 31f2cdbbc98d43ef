"""The import benchmark's wiring: a small synthetic export, measured end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from search_reference import BagOfWordsEmbedder

from benchmarks.bench_import import bench_import, import_rows, synthetic_export
from toolkit.config import Settings


def test_the_synthetic_export_is_a_valid_export_of_the_asked_size(tmp_path: Path) -> None:
    data = json.loads(synthetic_export(tmp_path / "r.json", 1_000).read_text(encoding="utf-8"))
    assert data["type"] == "private_supergroup"
    assert len(data["messages"]) == 1_000
    assert {m["type"] for m in data["messages"]} == {"message", "service"}


@pytest.mark.slow
def test_a_default_search_after_the_window_embeds_nothing(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, search={"default_scan_messages_limit": 50})
    result = bench_import(
        messages=2_000, embedder=BagOfWordsEmbedder(), settings=settings, embed_cap=100
    )
    assert result.messages == 2_000  # stored, service messages included
    assert result.search_embedded == 0
    assert result.embedded == 100
    rows = import_rows(result)
    assert [ok for *_, ok in rows][:2] == [result.store_rate >= 5_000, True]
