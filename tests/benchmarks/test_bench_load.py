"""``bench_load.render``: the verdict on two workers and the worth of search turns."""

from __future__ import annotations

from rich.console import Console

from benchmarks.bench_load import NO_TURNS, LoadResult, render


def _text(results: list[LoadResult]) -> str:
    console = Console(width=200, record=True)
    console.print(render(results))
    return console.export_text()


def test_two_workers_pass_at_the_target_ratio_with_no_errors() -> None:
    rows = [
        LoadResult("SQLite", 1, 1, 200.0, 100, 200, 0),
        LoadResult("SQLite", 2, 1, 260.0, 80, 150, 0),
        LoadResult("SQLite", 1, NO_TURNS, 100.0, 300, 500, 0),
        LoadResult("PostgreSQL", 1, 1, 200.0, 100, 200, 0),
        LoadResult("PostgreSQL", 2, 1, 240.0, 80, 150, 0),
    ]
    text = _text(rows)
    assert "1.30× (≥ 1.25×) PASS" in text
    assert "1.20× (≥ 1.25×) FAIL" in text
    assert "with turns: 2.00×" in text


def test_errors_fail_whatever_the_ratio() -> None:
    rows = [LoadResult("SQLite", 1, 1, 100.0, 1, 1, 0), LoadResult("SQLite", 2, 1, 300.0, 1, 1, 3)]
    assert "3.00× (≥ 1.25×) FAIL" in _text(rows)


def test_embed_rows_judge_the_toolkit_setting_against_the_engine_default() -> None:
    from benchmarks.bench_embed import EmbedRate, embed_rows

    engine = EmbedRate("engine", 100.0, 50.0)
    rows = embed_rows([engine, EmbedRate("ours", 95.0, 120.0), EmbedRate("passive", 85, 130)])
    assert rows[0][1] == "100.0 texts/s (×1.00); 50.0 texts/s (×1.00)"
    assert rows[0][3] is None
    assert rows[1][1] == "95.0 texts/s (×0.95); 120.0 texts/s (×2.40)"
    assert rows[1][3] is True
    assert rows[2][3] is None  # shown for comparison, not judged
    slower = embed_rows([engine, EmbedRate("ours", 80.0, 120.0)])
    assert slower[1][3] is False
    no_gain = embed_rows([engine, EmbedRate("ours", 100.0, 60.0)])
    assert no_gain[1][3] is False
