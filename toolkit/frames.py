"""``Table``: a small list of records that turns into a pandas or polars DataFrame.

Notebook and app results (sources, messages, evaluation rows) are plain records, so a
researcher can keep them as Python objects, or call ``.to_pandas()`` / ``.to_polars()``
for analysis; in Jupyter they render as an HTML table. pandas and polars are imported
only when asked for, so the toolkit itself does not need them.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, overload

from toolkit.models import iso_z

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped,unused-ignore]
    import polars as pl

_HTML_ROWS = 50


def _cell_html(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, datetime):
        return html.escape(iso_z(value))
    text = str(value)
    if text.startswith("https://"):
        return f'<a href="{html.escape(text)}" target="_blank">{html.escape(text)}</a>'
    return html.escape(text if len(text) <= 300 else text[:299] + "…")


class Table:
    """An ordered list of records (dicts with the same keys), convertible to DataFrames.

    Args:
        rows: the records; every row should have the keys of ``columns``.
        columns: column order; by default the keys of the first row.
        title: an optional caption shown above the HTML table.
    """

    def __init__(
        self,
        rows: Sequence[Mapping[str, Any]],
        *,
        columns: Sequence[str] | None = None,
        title: str | None = None,
    ) -> None:
        self._rows = [dict(row) for row in rows]
        if columns is None:
            columns = list(self._rows[0]) if self._rows else []
        self.columns: list[str] = list(columns)
        self.title = title

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

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell_html(row.get(c))}</td>" for c in self.columns) + "</tr>"
            for row in self._rows[:_HTML_ROWS]
        )
        more = len(self._rows) - _HTML_ROWS
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        tail = f"<p><i>… {more} more rows</i></p>" if more > 0 else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}"

    def __repr__(self) -> str:
        name = f" {self.title!r}" if self.title else ""
        return f"<Table{name}: {len(self)} rows × {len(self.columns)} columns {self.columns}>"
