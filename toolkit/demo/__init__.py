"""The demo sources shipped with the package (``mlens demo``, ``make serve``, notebooks).

Two Telegram Desktop single-chat JSON exports built from real public text by
``scripts/make_demo.py``; ``README.md`` beside them gives each part's origin and licence.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
# File name -> the public handle the source is imported under.
_DEMOS = (
    ("mlens_demo_en.json", "@mlens_demo_en"),
    ("mlens_demo_ru.json", "@mlens_demo_ru"),
)


def demo_files() -> list[tuple[Path, str | None]]:
    """Each demo export's path and the public handle to import it under.

    Returns:
        ``[(path, "@mlens_demo_en"), (path, "@mlens_demo_ru")]``, for
        ``import_export(store, path, ref=handle)``.
    """
    return [(_HERE / name, handle) for name, handle in _DEMOS]
