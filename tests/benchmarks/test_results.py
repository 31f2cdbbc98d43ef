"""``make bench`` writes its rows to a results file, and the docs render them from it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks.results import write_bench_results

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import gen_docs


def test_bench_rows_are_written_with_their_context_and_rendered(tmp_path: Path) -> None:
    rows = [
        ("search p50 / p95, scan 200 (8 texts in 10)", "6.7 / 7.3 ms", "p50 ≤ 30 ms", True),
        ("  same, repeated query", "1.1 / 1.2 ms", "—", None),
        ("import + embed, demo sources", "10 msgs in 1.0 s = 10.0 msg/s", "≥ 50 msg/s", False),
    ]
    path = write_bench_results(rows, load_before=1.5, path=tmp_path / "bench.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["command"] == "make bench"
    assert document["load_average"]["start"] == 1.5
    assert [r["ok"] for r in document["rows"]] == [True, None, False]
    table = gen_docs.bench_block(document)
    assert (
        "| search p50 / p95, scan 200 (8 texts in 10) | 6.7 / 7.3 ms | p50 ≤ 30 ms | ✔ |" in table
    )
    assert "| same, repeated query | 1.1 / 1.2 ms | — | — |" in table
    assert "| ✘ |" in table
    assert "load average 1.5 at the start" in table
