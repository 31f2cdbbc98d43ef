"""``python -m benchmarks.bench_concurrency``: searches while a big import runs.

``make bench-load`` (and ``python -m benchmarks.bench --concurrency``) runs it.
One ``mlens serve`` worker on an SQLite store holding both demo sources (as in
``bench_load``); 50 clients send searches for 30 s, first with nothing else going on,
then while another process imports a 500,000-message export (~190 MB, synthetic:
``synthetic.write_export``) into the same store. Each load row shows requests, errors
(target 0), p50/p95 latency; the last row the ratio of the two p50s and throughputs:
what the import costs the readers. Afterwards the counts must add up: the demo
sources unchanged and the new source holding exactly 500,000 messages.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.bench_load import _client, _requests, _serve, _stop, build_store
from benchmarks.synthetic import write_export
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.store import SQLiteStore

CLIENTS = 50
SECONDS = 30.0
WARMUP_SECONDS = 4.0
IMPORT_MESSAGES = 500_000
IMPORT_CHAT_ID = 4_000_000_500
_IMPORT = (
    "import sys\n"
    "from toolkit.ingest.export.read import import_export\n"
    "from toolkit.store import SQLiteStore\n"
    "store = SQLiteStore(sys.argv[1])\n"
    "print(import_export(store, sys.argv[2]).total.inserted)\n"
    "store.close()\n"
)


@dataclass(frozen=True, slots=True)
class Load:
    """One load run: answered requests, failures, latency percentiles."""

    name: str
    requests: int
    errors: int
    p50_ms: float
    p95_ms: float

    @property
    def rate(self) -> float:
        """Answered requests per second."""
        return self.requests / SECONDS


async def _clients(port: int, token: str, seconds: float) -> tuple[list[float], int]:
    bodies = _requests(token)
    latencies: list[float] = []
    errors: list[int] = []
    deadline = time.perf_counter() + seconds
    await asyncio.gather(
        *(
            _client(
                port,
                bodies[i % len(bodies) :] + bodies[: i % len(bodies)],
                deadline,
                latencies,
                errors,
            )
            for i in range(CLIENTS)
        )
    )
    return latencies, len(errors)


def _measure(name: str, port: int, token: str) -> Load:
    latencies, errors = asyncio.run(_clients(port, token, SECONDS))
    ms = np.array(latencies or [0.0]) * 1000
    return Load(
        name, len(latencies), errors, float(np.percentile(ms, 50)), float(np.percentile(ms, 95))
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """Both loads, and what the import did."""

    quiet: Load
    busy: Load
    import_seconds: float
    import_ran_throughout: bool
    counts_add_up: bool


def run(folder: Path) -> Outcome:
    """Build the store and the export in ``folder``, serve, load twice, check the counts."""
    root = Path(__file__).resolve().parents[1]
    database = folder / "load.sqlite3"
    store = SQLiteStore(database)
    build_store(store, Settings(_env_file=None))  # type: ignore[call-arg]
    token, _ = create_api_key(store, name="load", scopes=["search.read"])
    before = {s.source.key: s.message_count for s in store.list_sources()}
    store.close()
    export = write_export(folder / "big.json", IMPORT_MESSAGES, chat_id=IMPORT_CHAT_ID)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    env |= {"MLENS_RATE_LIMIT_PER_MINUTE": "0", "PYTHONPATH": str(root)}
    env |= {"MLENS_DATABASE": str(database), "MLENS_DATA_DIR": str(folder)}
    child, port = _serve(env, 1, folder)
    try:
        asyncio.run(_clients(port, token, WARMUP_SECONDS))
        quiet = _measure("no import", port, token)
        started = time.perf_counter()
        importer = subprocess.Popen(
            [sys.executable, "-c", _IMPORT, str(database), str(export)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        busy = _measure(f"during a {IMPORT_MESSAGES:,}-message import", port, token)
        throughout = importer.poll() is None
        out, _ = importer.communicate(timeout=1800)
        seconds = time.perf_counter() - started
    finally:
        _stop(child)
    store = SQLiteStore(database)
    after = {s.source.key: s.message_count for s in store.list_sources()}
    store.close()
    expected = before | {f"c/{IMPORT_CHAT_ID}": IMPORT_MESSAGES}
    ok = importer.returncode == 0 and out.strip() == str(IMPORT_MESSAGES) and after == expected
    return Outcome(quiet, busy, seconds, throughout, ok)


def rows(outcome: Outcome) -> list[tuple[str, str, str, bool | None]]:
    """``(measurement, result, target, ok)`` rows for ``bench``'s table."""
    out: list[tuple[str, str, str, bool | None]] = []
    for load in (outcome.quiet, outcome.busy):
        out.append(
            (
                f"{CLIENTS} clients × {SECONDS:.0f} s searches, {load.name}",
                f"{load.requests:,} req ({load.rate:.1f}/s), {load.errors} errors, "
                f"p50 {load.p50_ms:.0f} / p95 {load.p95_ms:.0f} ms",
                "0 errors",
                load.errors == 0,
            )
        )
    q, b = outcome.quiet, outcome.busy
    out.append(
        (
            "  cost of the import to searches",
            f"p50 ×{b.p50_ms / max(q.p50_ms, 1e-9):.2f}, "
            f"throughput ×{b.rate / max(q.rate, 1e-9):.2f}",
            "—",
            None,
        )
    )
    out.append(
        (
            f"  the {IMPORT_MESSAGES:,}-message import itself",
            f"{outcome.import_seconds:.0f} s"
            + ("" if outcome.import_ran_throughout else " (it ended before the load window did)")
            + (", counts add up" if outcome.counts_add_up else ", COUNTS DO NOT ADD UP"),
            "lands whole",
            outcome.counts_add_up,
        )
    )
    return out


def main() -> None:
    """Run the measurement and print its table."""
    with tempfile.TemporaryDirectory(prefix="mlens-concurrency-") as tmp:
        outcome = run(Path(tmp))
    table = Table(title="Searches while an import runs (SQLite, one worker)")
    for column in ("measurement", "result", "target", "verdict"):
        table.add_column(column)
    for name, result, target, ok in rows(outcome):
        verdict = "—" if ok is None else "[green]PASS[/]" if ok else "[red]FAIL[/]"
        table.add_row(name, result, target, verdict)
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
