"""``make bench`` writes its rows to a results file, and the docs render them from it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


def test_a_page_shows_its_chosen_rows_in_its_order() -> None:
    rows = [
        {"measurement": f"{start}x", "result": f"r{k}", "target": "t", "ok": k % 2 == 0}
        for k, start in enumerate(reversed(gen_docs.SEARCH_BENCH))
    ]
    rows[0]["ok"] = None  # a row without a target shows none
    document = {"date": "d", "cpus": 2, "load_average": {"start": 0.5, "end": 1}, "rows": rows}
    table = gen_docs.bench_search_block(document)
    lines = [
        line for line in table.splitlines() if line.startswith("| ") and "measurement" not in line
    ]
    assert [line.split(" | ")[0][2:] for line in lines] == [
        f"{s}x".strip() for s in gen_docs.SEARCH_BENCH
    ]
    assert f"| {gen_docs.SEARCH_BENCH[-1].strip()}x | r0 | — |" in table
    document["rows"] = rows[1:]
    with pytest.raises(KeyError, match="search index of the 100,000"):
        gen_docs.bench_search_block(document)


def test_the_query_embedding_row_shows_both_figures_and_their_ratio() -> None:
    from benchmarks.bench_embed import query_row

    name, result, target, ok = query_row(14.6, 6.5)
    assert "request threads" in name
    assert result == "14.6 ms; 6.5 ms (×2.25 faster)"
    assert (target, ok) == ("—", None)
