"""``Table`` and its renderings: DataFrames, HTML, rich, a pandas Styler."""

from __future__ import annotations

from datetime import date

import pytest
from rich.console import Console

from toolkit.models import Source, SourceKind
from toolkit.notebook.table import Table
from toolkit.notebook.tables import per_day_table


def test_table_converts_to_pandas_and_polars_with_columns_in_order() -> None:
    table = Table([{"b": 1, "a": "x"}, {"b": 2, "a": "y"}], columns=["a", "b"])
    frame = table.to_pandas()
    assert list(frame.columns) == ["a", "b"]
    assert frame["b"].tolist() == [1, 2]
    polars = table.to_polars()
    assert polars.columns == ["a", "b"]
    assert polars["a"].to_list() == ["x", "y"]
    assert table["a"] == ["x", "y"]
    assert table[1] == {"b": 2, "a": "y"}
    with pytest.raises(KeyError):
        table["missing"]


def test_table_rows_are_copies() -> None:
    table = Table([{"a": 1}])
    table.rows[0]["a"] = 99
    assert table[0]["a"] == 1


def test_table_html_escapes_text_and_links_urls() -> None:
    html = Table([{"text": "<script>x</script>", "link": "https://t.me/a/1"}])._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert '<a href="https://t.me/a/1"' in html


def test_empty_table_converts() -> None:
    table = Table([], columns=["day", "messages"])
    assert table.to_pandas().empty
    assert list(table.to_pandas().columns) == ["day", "messages"]
    assert table.to_polars().columns == ["day", "messages"]


def test_per_day_table_fills_quiet_days_with_zero() -> None:
    source = Source(id=1, title="S", kind=SourceKind.CHAT, handle="demo_src")
    days = [date(2026, 3, 1), date(2026, 3, 1), date(2026, 3, 4)]
    table = per_day_table(source, days)
    assert table["messages"] == [2, 0, 0, 1]
    assert table["day"][0] == date(2026, 3, 1)
    assert table["day"][-1] == date(2026, 3, 4)


def _scores() -> Table:
    rows = [{"method": "a", "x": 0.5, "y": 0.25}, {"method": "b", "x": 0.75, "y": 0.125}]
    return Table(rows, title="Scores", best=["x", "y"], digits=3)


def test_best_values_are_bold_in_every_rendering() -> None:
    table = _scores()
    html = table._repr_html_()
    assert "<td><b>0.750</b></td>" in html
    assert "<td><b>0.250</b></td>" in html
    assert "<td>0.500</td>" in html
    assert "<caption>Scores</caption>" in html
    console = Console(record=True, width=80)
    console.print(table)
    text = console.export_text()
    assert "0.750" in text
    assert "0.125" in text
    assert "Scores" in text
    cells = {
        cell.plain if hasattr(cell, "plain") else str(cell)
        for col in table.to_rich().columns
        for cell in col.cells
    }
    assert "[bold]0.750[/]" in cells
    assert "0.500" in cells
    styled = table.styled().to_html()
    assert "font-weight: bold" in styled
    assert "0.750" in styled


def test_rich_rendering_folds_long_ids_on_a_narrow_terminal() -> None:
    ref = "c/1987654321012345"
    console = Console(record=True, width=30)
    console.print(Table([{"ref": ref, "title": "A rather long title of a source"}]))
    text = console.export_text()
    assert "…" not in text  # folded onto a second line, never cut
    assert "c/1987654321" in text
    assert "012345" in text


def test_view_keeps_some_columns_under_other_names() -> None:
    table = _scores().view(["x", "method"], labels={"x": "score"}, title="Top")
    assert table.columns == ["score", "method"]
    assert table.rows == [{"score": 0.5, "method": "a"}, {"score": 0.75, "method": "b"}]
    assert (table.title, table.best, table.digits) == ("Top", ("score",), 3)
    assert _scores().view(["method"]).title == "Scores"
