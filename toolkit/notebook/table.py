"""``Table``: a small list of records that turns into a DataFrame, HTML or a rich table.

Results of the notebooks, the app and the CLI (sources, messages, evaluation rows) are
plain records, so a researcher can keep them as Python objects, or call
``.to_pandas()`` / ``.to_polars()`` for analysis; in Jupyter they render as HTML, in a
terminal as a rich table, in the app as a styled DataFrame; every rendering formats
its values with ``cells``, so a table looks the same (same columns, decimals and bold
best values) wherever it is shown. pandas, polars and rich are imported only when
asked for.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from toolkit.controls import visible
from toolkit.notebook.cells import best_of, cell_html, cell_text, is_best, is_number

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped,unused-ignore]
    import polars as pl
    from pandas.io.formats.style import Styler  # type: ignore[import-untyped,unused-ignore]
    from rich.table import Table as RichTable

HTML_ROWS = 50
"""Rows shown in a notebook; the rest are counted."""


class Table:
    """An ordered list of records (dicts with the same keys), convertible to DataFrames.

    Args:
        rows: the records; every row should have the keys of ``columns``.
        columns: column order; by default the keys of the first row.
        title: an optional caption.
        best: columns whose highest value is shown in bold.
        digits: decimals shown for floats (the data keep full precision).
    """

    def __init__(
        self,
        rows: Sequence[Mapping[str, Any]],
        *,
        columns: Sequence[str] | None = None,
        title: str | None = None,
        best: Sequence[str] = (),
        digits: int = 4,
    ) -> None:
        self._rows = [dict(row) for row in rows]
        if columns is None:
            columns = list(self._rows[0]) if self._rows else []
        self.columns: list[str] = list(columns)
        self.title = title
        self.best = tuple(best)
        self.digits = digits

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The records, as dicts (a copy: changing it leaves the table as it is)."""
        return [dict(row) for row in self._rows]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: str) -> list[Any]: ...
    def __getitem__(self, index: int | str) -> dict[str, Any] | list[Any]:
        """A row by position, or a whole column by name."""
        if isinstance(index, str):
            if index not in self.columns:
                raise KeyError(index)
            return [row.get(index) for row in self._rows]
        return dict(self._rows[index])

    def column(self, name: str) -> list[Any]:
        """The values of one column, in row order."""
        return self[name]

    def view(
        self,
        columns: Sequence[str],
        *,
        labels: Mapping[str, str] | None = None,
        title: str | None = None,
        digits: int | None = None,
    ) -> Table:
        """Some columns of the table, in this order, shown under other names.

        Args:
            columns: the columns to keep.
            labels: display names by column name (the others keep theirs).
            title: a new caption (default: this table's).
            digits: decimals shown for floats (default: this table's).
        """
        names = dict(labels or {})
        rows = [{names.get(c, c): row.get(c) for c in columns} for row in self._rows]
        return Table(
            rows,
            columns=[names.get(c, c) for c in columns],
            title=self.title if title is None else title,
            best=[names.get(c, c) for c in self.best if c in columns],
            digits=self.digits if digits is None else digits,
        )

    def to_dicts(self) -> list[dict[str, Any]]:
        """The records as a list of dicts, columns in order."""
        return [{c: row.get(c) for c in self.columns} for row in self._rows]

    def to_pandas(self) -> pd.DataFrame:
        """The table as a ``pandas.DataFrame`` (columns in order)."""
        import pandas as pd

        return pd.DataFrame(self.to_dicts(), columns=self.columns)

    def to_polars(self) -> pl.DataFrame:
        """The table as a ``polars.DataFrame`` (columns in order)."""
        import polars as pl

        data = {c: [row.get(c) for row in self._rows] for c in self.columns}
        return pl.DataFrame(data, strict=False)

    def best_values(self) -> dict[str, Any]:
        """The highest value of each of the ``best`` columns."""
        return best_of({column: self[column] for column in self.best})

    def to_rich(self) -> RichTable:
        """The table for a terminal (``rich.console.Console().print``): numbers
        right-aligned, best values bold; cells fold rather than get cut, so refs and ids
        stay whole on a narrow terminal. Every cell, the title and the headers are shown
        literally: Rich markup escaped, control characters visible (``controls.visible``),
        so a message can neither colour nor move text on the terminal."""
        from rich.markup import escape
        from rich.table import Table as RichTable

        best = self.best_values()
        rows = self.to_dicts()
        out = RichTable(title=escape(visible(self.title, one_line=True)) if self.title else None)
        for column in self.columns:
            numeric = any(is_number(row[column]) for row in rows)
            header = escape(visible(column, one_line=True))
            out.add_column(header, justify="right" if numeric else "left", overflow="fold")
        for row in rows:
            cells = []
            for column in self.columns:
                text = escape(visible(cell_text(row[column], self.digits)))
                cells.append(f"[bold]{text}[/]" if is_best(best, column, row[column]) else text)
            out.add_row(*cells)
        return out

    def styled(self) -> Styler:
        """The table as a pandas ``Styler`` (the app's ``st.dataframe``): floats with the
        table's decimals, missing values empty, best values bold."""
        numeric = [c for c in self.columns if any(isinstance(v, float) for v in self[c])]
        styler = self.to_pandas().style.format(f"{{:.{self.digits}f}}", subset=numeric, na_rep="")
        if self.best:
            styler = styler.highlight_max(subset=list(self.best), props="font-weight: bold")
        return styler

    def __rich__(self) -> RichTable:
        return self.to_rich()

    def _repr_html_(self) -> str:
        """The table as an HTML ``<table>`` (first ``HTML_ROWS`` rows), best values bold."""
        best = self.best_values()

        def cell(column: str, value: Any) -> str:
            text = cell_html(value, self.digits)
            return f"<b>{text}</b>" if is_best(best, column, value) else text

        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{cell(c, row.get(c))}</td>" for c in self.columns) + "</tr>"
            for row in self.to_dicts()[:HTML_ROWS]
        )
        more = len(self) - HTML_ROWS
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        tail = f"<p><i>… {more} more rows</i></p>" if more > 0 else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}"

    def __repr__(self) -> str:
        name = f" {self.title!r}" if self.title else ""
        return f"<Table{name}: {len(self)} rows × {len(self.columns)} columns {self.columns}>"
