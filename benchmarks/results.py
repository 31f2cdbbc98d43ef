"""The results file of ``make bench``: ``docs/results/bench.json``.

``python -m benchmarks.bench`` writes every row of its table there with the date, the
machine's core count and its load average at the start and the end of the run;
``scripts/gen_docs.py`` renders the table into the README and ``docs/`` from it, so the
published numbers are the last run's and nobody types them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "bench.json"


def load_average() -> float:
    """The one-minute load average (0.0 where the platform has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover - platforms without getloadavg
        return 0.0


def write_bench_results(
    rows: Sequence[tuple[str, str, str, bool | None]],
    *,
    load_before: float,
    path: Path = BENCH_RESULTS,
) -> Path:
    """Write the bench rows (measurement, result, target, ok) and the run's context."""
    document: dict[str, Any] = {
        "command": "make bench",
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "load_average": {"start": load_before, "end": load_average()},
        "rows": [
            {"measurement": name, "result": result, "target": target, "ok": ok}
            for name, result, target, ok in rows
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path
