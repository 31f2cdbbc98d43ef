"""Row shapes of the SQLite store only; the column lists and row conversions are the
stores' shared ones (``rows.py``)."""

from __future__ import annotations

import sqlite3
from typing import Any

IN_CHUNK = 500
"""Ids per ``IN (...)`` list (SQLite allows 32,766 variables; smaller lists plan better)."""

Row = sqlite3.Row | tuple[Any, ...]
