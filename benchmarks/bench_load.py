"""``python -m benchmarks.bench_load`` (``make bench-load``): searches/s under load.

For SQLite and for PostgreSQL (a throwaway server started here, like the tests), and
for ``mlens serve --workers 1`` and ``--workers 2``: 40 clients send searches for 20 s
over keep-alive connections, in four 5 s turns with the two services alternating (so
that the varying load of a shared machine falls on both alike); the table shows
searches/s, p50/p95 latency, errors, and the ratio of two workers to one (target
≥ 1.25× on 2 cores, with 0 errors). For SQLite a third service, one worker whose
searches do not take turns (``MLENS_SEARCH_CONCURRENCY=40``, one per client), shows
what the turns (``toolkit.turns``) are worth.

The store holds both demo sources (5,535 real messages) with one vector each. The
vectors are seeded random unit vectors of the model's size rather than embeddings:
scoring costs the same whatever their values, and embedding 5,000 messages would
take a minute of the machine. Queries rotate over ``bench_service.QUERIES`` (the query cache
answers repeats, as it does for a busy service). The client is a small asyncio HTTP/1.1
loop, so that it takes little of the CPU the server is measured on.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks.bench_service import QUERIES as SEARCHES
from benchmarks.bench_service import free_port, wait_until_healthy
from benchmarks.pg_server import PgServer
from toolkit.apikeys import create_api_key
from toolkit.config import Settings
from toolkit.embeddings import get_embedder
from toolkit.store import MessageStore, SQLiteStore, open_store_at
from toolkit.store.copy import copy_store

CLIENTS = 40
SECONDS = 20.0
WARMUP_SECONDS = 4.0
SLICES = 4
WORKERS = (1, 2)
NO_TURNS = CLIENTS  # MLENS_SEARCH_CONCURRENCY of the baseline: every client computes at once
TARGET_RATIO = 1.25
QUERIES = SEARCHES[:6]
SOURCES = ("@mlens_demo_en", "@mlens_demo_ru")


@dataclass(frozen=True, slots=True)
class LoadResult:
    """One load run: searches answered per second, latency percentiles, failures."""

    store: str
    workers: int
    turns: int
    rate: float
    p50_ms: float
    p95_ms: float
    errors: int


def build_store(store: MessageStore, settings: Settings) -> None:
    """Both demo exports, every searchable message with a seeded random unit vector
    stored under the configured embedder's model name."""
    from toolkit.demo import demo_files
    from toolkit.ingest.export.read import import_export

    embedder = get_embedder(settings)
    model, dimension = embedder.model_name, embedder.dimension
    rng = np.random.default_rng(12)
    for path, handle in demo_files():
        report = import_export(store, path, ref=handle)
        for item in report.sources:
            missing = store.messages_without_vectors(item.source.id, model)
            vectors = rng.standard_normal((len(missing), dimension)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            ids = [m.messenger_message_id for m in missing]
            store.put_vectors(item.source.id, model, zip(ids, vectors, strict=True))


async def _client(
    port: int, bodies: list[bytes], deadline: float, latencies: list[float], errors: list[int]
) -> None:
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    turn = 0
    while time.perf_counter() < deadline:
        body = bodies[turn % len(bodies)]
        turn += 1
        try:
            if writer is None or reader is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            started = time.perf_counter()
            writer.write(body)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
            if head.startswith(b"HTTP/1.1 200"):
                latencies.append(time.perf_counter() - started)
            else:
                errors.append(1)
        except (OSError, asyncio.IncompleteReadError, StopIteration, ValueError):
            errors.append(1)
            if writer is not None:
                writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


def _requests(token: str) -> list[bytes]:
    out = []
    for i, query in enumerate(QUERIES * len(SOURCES)):
        payload = json.dumps(
            {"source_ref": SOURCES[i % len(SOURCES)], "query": query, "limit": 10}
        ).encode()
        head = (
            "POST /v1/search/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        )
        out.append(head.encode() + payload)
    return out


async def _load(port: int, token: str, seconds: float) -> tuple[list[float], int]:
    bodies = _requests(token)
    latencies: list[float] = []
    errors: list[int] = []
    deadline = time.perf_counter() + seconds
    await asyncio.gather(
        *(
            _client(port, bodies[i:] + bodies[:i], deadline, latencies, errors)
            for i in range(CLIENTS)
        )
    )
    return latencies, len(errors)


def _serve(env: dict[str, str], workers: int, folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = [sys.executable, "-m", "cli", "serve", "--port", str(port)]
    child = subprocess.Popen(
        [*command, "--workers", str(workers)],
        env=env,
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the supervisor and its workers form one process group
    )
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}", child, timeout=120, what="mlens serve")
    except RuntimeError:
        _stop(child)
        raise
    return child, port


def _stop(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    except ProcessLookupError:
        pass


def run_load(
    name: str, env: dict[str, str], token: str, folder: Path, *, baseline: bool = False
) -> list[LoadResult]:
    """Serve the store ``env`` names with 1 and with 2 workers (and, with ``baseline``,
    one worker whose searches do not take turns); load each for ``SECONDS``.

    The services run side by side (an idle one costs nothing) and take turns in
    ``SLICES`` slices, so that a machine whose other load comes and goes weighs on all
    alike instead of on whichever happened to run first.
    """
    turns = Settings(_env_file=None).search.concurrency  # type: ignore[call-arg]
    runs = [(workers, turns) for workers in WORKERS] + ([(1, NO_TURNS)] if baseline else [])
    served = [
        _serve(env | {"MLENS_SEARCH_CONCURRENCY": str(slots)}, workers, folder)
        for workers, slots in runs
    ]
    latencies: list[list[float]] = [[] for _ in runs]
    errors = [0 for _ in runs]
    try:
        for _, port in served:
            asyncio.run(_load(port, token, WARMUP_SECONDS))  # every worker loads its model
        for _ in range(SLICES):
            for i, (_, port) in enumerate(served):
                got, failed = asyncio.run(_load(port, token, SECONDS / SLICES))
                latencies[i] += got
                errors[i] += failed
    finally:
        for child, _ in served:
            _stop(child)
    results = []
    for i, (workers, slots) in enumerate(runs):
        ms = np.array(latencies[i] or [0.0]) * 1000
        rate = len(latencies[i]) / SECONDS
        p50, p95 = float(np.percentile(ms, 50)), float(np.percentile(ms, 95))
        results.append(LoadResult(name, workers, slots, rate, p50, p95, errors[i]))
    return results


def render(results: list[LoadResult]) -> Table:
    """The load table: one row per run; the ratio of two workers to one on the two-worker
    row, and of one worker taking turns to one without on the baseline's row."""
    table = Table(title=f"Search under load: {CLIENTS} clients for {SECONDS:.0f} s")
    columns = ("store", "workers", "search turns", "searches/s", "p50 ms", "p95 ms", "errors")
    for column in (*columns, "ratio"):
        table.add_column(column)
    one = {r.store: r.rate for r in results if r.workers == 1 and r.turns != NO_TURNS}
    for r in results:
        ratio = ""
        if r.turns == NO_TURNS and r.rate:
            ratio = f"with turns: {one[r.store] / r.rate:.2f}×"
        elif r.workers > 1 and one.get(r.store):
            value = r.rate / one[r.store]
            ok = value >= TARGET_RATIO and r.errors == 0
            verdict = "[green]PASS[/]" if ok else "[red]FAIL[/]"
            ratio = f"{value:.2f}× (≥ {TARGET_RATIO}×) {verdict}"
        table.add_row(
            r.store,
            str(r.workers),
            str(r.turns),
            f"{r.rate:.1f}",
            f"{r.p50_ms:.0f}",
            f"{r.p95_ms:.0f}",
            str(r.errors),
            ratio,
        )
    return table


def main() -> None:
    """Build the stores, run the four loads, print the table."""
    root = Path(__file__).resolve().parents[1]
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    base_env |= {"MLENS_RATE_LIMIT_PER_MINUTE": "0", "PYTHONPATH": str(root)}
    results: list[LoadResult] = []
    with tempfile.TemporaryDirectory(prefix="mlens-load-") as tmp, PgServer() as pg:
        folder = Path(tmp)
        database = folder / "load.sqlite3"
        lite = SQLiteStore(database)
        build_store(lite, Settings(_env_file=None))  # type: ignore[call-arg]
        token, _ = create_api_key(lite, name="load", scopes=["search.read"])
        url = pg.create_database("load")
        remote = open_store_at(url, Settings(_env_file=None))  # type: ignore[call-arg]
        copy_store(lite, remote)
        remote.close()
        lite.close()
        env = {**base_env, "MLENS_DATABASE": str(database), "MLENS_DATA_DIR": str(folder)}
        results += run_load("SQLite", env, token, folder, baseline=True)
        env = {**base_env, "MLENS_DATABASE_URL": url, "MLENS_DATA_DIR": str(folder / "pg")}
        results += run_load("PostgreSQL", env, token, folder)
    Console(width=120).print(render(results))


if __name__ == "__main__":
    main()
