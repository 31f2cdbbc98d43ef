"""One value of a table as text or HTML: the formatting every rendering of a ``Table``
shares (``Table._repr_html_``, ``Table.to_rich``, ``Table.styled``), so that a value
looks the same, with the same decimals, wherever it is shown."""

from __future__ import annotations

import html
import numbers
from datetime import datetime
from typing import Any

from toolkit.models import iso_z

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


def best_of(columns: dict[str, list[Any]]) -> dict[str, Any]:
    """The highest number of each column (columns with no number are left out)."""
    found: dict[str, Any] = {}
    for column, values in columns.items():
        numbers_in = [v for v in values if is_number(v)]
        if numbers_in:
            found[column] = max(numbers_in)
    return found


def is_best(best: dict[str, Any], column: str, value: Any) -> bool:
    """True when ``value`` is the highest number of its column (``best_of``)."""
    return column in best and is_number(value) and value == best[column]
