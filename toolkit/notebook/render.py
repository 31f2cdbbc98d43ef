"""One table, three media: HTML for notebooks, a rich table for the terminal, a pandas
``Styler`` for the app. Every ``Table`` renders through these, so a table looks the
same (same columns, decimals and bold best values) wherever it is shown."""

from __future__ import annotations

import html
import numbers
from datetime import datetime
from typing import TYPE_CHECKING, Any

from toolkit.models import iso_z

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler  # type: ignore[import-untyped,unused-ignore]
    from rich.table import Table as RichTable

    from toolkit.notebook.table import Table

HTML_ROWS = 50
"""Rows shown in a notebook; the rest are counted."""
_TEXT_LIMIT = 300


def is_number(value: Any) -> bool:
    """True for ints and floats (numpy's too), not for booleans."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def cell_text(value: Any, digits: int = 4) -> str:
    """A cell as plain text: floats with ``digits`` decimals, datetimes as ISO 8601 UTC."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, datetime):
        return iso_z(value)
    return str(value)


def cell_html(value: Any, digits: int = 4) -> str:
    """A cell as HTML: links clickable, long text cut at 300 characters."""
    text = cell_text(value, digits)
    if text.startswith("https://"):
        return f'<a href="{html.escape(text)}" target="_blank">{html.escape(text)}</a>'
    if len(text) > _TEXT_LIMIT:
        text = text[: _TEXT_LIMIT - 1] + "…"
    return html.escape(text)


def best_values(table: Table) -> dict[str, Any]:
    """The highest value of each of the table's ``best`` columns."""
    found: dict[str, Any] = {}
    for column in table.best:
        values = [v for v in table[column] if is_number(v)]
        if values:
            found[column] = max(values)
    return found


def _is_best(best: dict[str, Any], column: str, value: Any) -> bool:
    return column in best and is_number(value) and value == best[column]


def html_table(table: Table) -> str:
    """The table as an HTML ``<table>`` (first ``HTML_ROWS`` rows), best values bold."""
    best = best_values(table)

    def cell(column: str, value: Any) -> str:
        text = cell_html(value, table.digits)
        return f"<b>{text}</b>" if _is_best(best, column, value) else text

    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{cell(c, row.get(c))}</td>" for c in table.columns) + "</tr>"
        for row in table.to_dicts()[:HTML_ROWS]
    )
    more = len(table) - HTML_ROWS
    caption = f"<caption>{html.escape(table.title)}</caption>" if table.title else ""
    tail = f"<p><i>… {more} more rows</i></p>" if more > 0 else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}"


def rich_table(table: Table) -> RichTable:
    """The table for a terminal (``rich``): numbers right-aligned, best values bold.

    Cells fold rather than get cut, so refs and ids stay whole on a narrow terminal.
    """
    from rich.markup import escape
    from rich.table import Table as RichTable

    best = best_values(table)
    rows = table.to_dicts()
    out = RichTable(title=table.title)
    for column in table.columns:
        numeric = any(is_number(row[column]) for row in rows)
        out.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        cells = []
        for column in table.columns:
            text = escape(cell_text(row[column], table.digits))
            cells.append(f"[bold]{text}[/]" if _is_best(best, column, row[column]) else text)
        out.add_row(*cells)
    return out


def styled(table: Table) -> Styler:
    """The table as a pandas ``Styler`` (the app's ``st.dataframe``): floats with the
    table's decimals, best values bold."""
    numeric = [c for c in table.columns if any(isinstance(v, float) for v in table[c])]
    styler = table.to_pandas().style.format(f"{{:.{table.digits}f}}", subset=numeric)
    if table.best:
        styler = styler.highlight_max(subset=list(table.best), props="font-weight: bold")
    return styler
