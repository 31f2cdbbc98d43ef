"""``python -m benchmarks.soak`` (``make soak``; not part of ``make test``): mixed load for
20 minutes, then a verdict on errors, latency, memory and what the store holds.

One ``mlens serve`` (SQLite in a temporary folder, the demo sources imported just before,
not embedded: the service embeds them in the background while it answers) takes, at
once and for the whole run:

- searches (two clients, ``/v1/search/messages`` over both demo sources, and
  ``/v1/search/all``),
- summaries (one client, ``/v1/summaries/chat`` and ``/v1/summaries/channel`` of
  random windows, and ``/v1/sources/by-ref/summary``; the cache is bypassed on half of them),
- MCP tool calls (one client over ``/mcp`` with the SDK's own client: sources, search,
  a period summary),
- imports (``mlens import`` of a new synthetic export into the live store every
  ``IMPORT_EVERY`` seconds, in its own process, as a user's shell would),
- a restart halfway (SIGTERM, then ``mlens serve`` again on the same store): requests
  that meet the closed port then are counted as "during the restart", not as errors.

The report gives each kind's count, errors and p95, the server's RSS after the warm-up
and at the end (and its growth over the second half, which must be flat), and the
message counts of ``GET /v1/sources`` against the exports': nothing lost. The exit code
is 1 when any check fails. ``--minutes`` shortens the run (a 2-minute run checks the
harness, not the memory).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
from rich.console import Console
from rich.table import Table

from benchmarks.bench_service import QUERIES, free_port, wait_until_healthy
from benchmarks.synthetic import write_export
from toolkit.apikeys import create_api_key
from toolkit.demo import demo_files
from toolkit.models import canonical_key
from toolkit.store import SQLiteStore

MINUTES = 20.0
WARMUP_SECONDS = 60.0
IMPORT_EVERY = 120.0
IMPORT_MESSAGES = 3_000
RSS_GROWTH_LIMIT = 0.10
"""The RSS may grow by this share over the run's second half (after the warm-up and the
restart's own warm-up) before the soak calls it a leak."""
P95_LIMIT_S = {"search": 2.0, "summary": 30.0, "mcp": 30.0}
SOURCES = ("@mlens_demo_en", "@mlens_demo_ru")
PERIOD_DAYS = (1, 2, 3, 7)


@dataclass
class Tally:
    """What one kind of request did: latencies of successes, errors by kind, restart misses."""

    seconds: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    during_restart: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ok(self, seconds: float) -> None:
        """Count a success that took ``seconds``."""
        with self.lock:
            self.seconds.append(seconds)

    def failed(self, what: str) -> None:
        """Count an error (a status or an exception's name)."""
        with self.lock:
            self.errors[what] += 1


class Server:
    """``mlens serve`` on a store folder; restartable; its process for RSS."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.env = env
        self.port = free_port()
        self.child: subprocess.Popen[bytes] | None = None
        self.restarting = threading.Event()

    @property
    def base(self) -> str:
        """The service's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the service and wait for ``/healthz``."""
        log = (self.folder / "serve.log").open("ab")
        self.child = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", str(self.port)],
            env=self.env,
            cwd=self.folder,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        wait_until_healthy(self.base, self.child, timeout=180, what="mlens serve")

    def stop(self) -> None:
        """SIGTERM the process group; SIGKILL after 30 s."""
        if self.child is None:
            return
        try:
            os.killpg(self.child.pid, signal.SIGTERM)
            self.child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.child.pid, signal.SIGKILL)
            self.child.wait()
        except ProcessLookupError:
            pass

    def restart(self) -> None:
        """Stop and start again on the same store and port."""
        self.restarting.set()
        try:
            self.stop()
            self.start()
        finally:
            self.restarting.clear()

    def rss(self) -> int:
        """Resident memory of the service's processes (bytes)."""
        if self.child is None or self.child.poll() is not None:
            return 0
        try:
            root = psutil.Process(self.child.pid)
            return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
        except psutil.Error:
            return 0


def _timed(
    server: Server, tally: Tally, client: httpx.Client, method: str, path: str, body: Any
) -> None:
    began = time.perf_counter()
    try:
        response = client.request(method, f"{server.base}{path}", json=body)
    except httpx.TransportError as exc:
        if server.restarting.is_set():
            tally.during_restart += 1
            time.sleep(0.5)  # the port is closed for a few seconds: no busy loop
        else:
            tally.failed(type(exc).__name__)
        return
    if response.status_code >= 400:
        if server.restarting.is_set() and response.status_code == 503:
            tally.during_restart += 1
            time.sleep(0.5)
        else:
            tally.failed(str(response.status_code))
        return
    tally.ok(time.perf_counter() - began)


def _searches(server: Server, token: str, tally: Tally, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        while not stop.is_set():
            query = rng.choice(QUERIES)
            if rng.random() < 0.2:
                _timed(
                    server, tally, client, "POST", "/v1/search/all", {"query": query, "limit": 10}
                )
            else:
                body = {"source_ref": rng.choice(SOURCES), "query": query, "limit": 10}
                _timed(server, tally, client, "POST", "/v1/search/messages", body)


def _summaries(
    server: Server,
    token: str,
    tally: Tally,
    stop: threading.Event,
    spans: dict[str, tuple[Any, Any]],
) -> None:
    rng = random.Random(3)
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=180) as client:
        while not stop.is_set():
            ref = rng.choice(SOURCES)
            kind = "chat" if ref.endswith("_en") else "channel"
            if rng.random() < 0.15:
                body: dict[str, Any] = {
                    "source_ref": ref,
                    "language": rng.choice(["en", "ru", "uk"]),
                }
                _timed(server, tally, client, "POST", "/v1/sources/by-ref/summary", body)
                continue
            first, last = spans[ref]
            days = rng.choice(PERIOD_DAYS)
            total = max(1, (last - first).days - days)
            start = first + timedelta(days=rng.randrange(total))
            body = {
                "source_ref": ref,
                "started_at": start.isoformat(),
                "ended_at": (start + timedelta(days=days)).isoformat(),
                "language": rng.choice(["en", "ru", "uk"]),
                "use_cache": rng.random() < 0.5,
            }
            _timed(server, tally, client, "POST", f"/v1/summaries/{kind}", body)


def _mcp(server: Server, token: str, tally: Tally, stop: threading.Event) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(5)

    async def one_session() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=180) as http:
            transport = streamable_http_client(f"{server.base}/mcp", http_client=http)
            async with Client(transport) as client:  # type: ignore[arg-type]
                for _ in range(20):
                    if stop.is_set():
                        return
                    choices: list[tuple[str, dict[str, Any]]] = [
                        ("list_sources", {}),
                        (
                            "search_messages",
                            {"source_ref": rng.choice(SOURCES), "query": rng.choice(QUERIES)},
                        ),
                        ("search_all", {"query": rng.choice(QUERIES), "limit": 5}),
                    ]
                    tool, arguments = rng.choice(choices)
                    began = time.perf_counter()
                    result = await client.call_tool(tool, arguments)
                    if result.is_error:
                        tally.failed(f"{tool}: tool error")
                    else:
                        tally.ok(time.perf_counter() - began)

    while not stop.is_set():
        try:
            asyncio.run(one_session())
        except Exception as exc:  # a session cut by the restart, or a real failure
            if server.restarting.is_set():
                tally.during_restart += 1
            else:
                tally.failed(type(exc).__name__)
            time.sleep(1)


def _imports(
    server: Server,
    folder: Path,
    env: dict[str, str],
    stop: threading.Event,
    expected: dict[str, int],
    tally: Tally,
) -> None:
    n = 0
    while not stop.wait(IMPORT_EVERY if n else 5.0):
        n += 1
        export = write_export(
            folder / f"soak-{n}.json",
            IMPORT_MESSAGES,
            chat_id=4_100_000_000 + n,
            name=f"Soak {n}",
            seed=n,
        )
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "cli", "import", str(export), "--no-progress"],
            env=env,
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if done.returncode != 0:
            tally.failed(
                done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "import failed"
            )
            continue
        tally.ok(time.perf_counter() - began)
        expected[f"c/{4_100_000_000 + n}"] = IMPORT_MESSAGES


def _p95(seconds: list[float]) -> float:
    if not seconds:
        return 0.0
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def run(minutes: float) -> int:
    """Run the soak for ``minutes``; print the report; return the exit code."""
    console = Console(width=120)
    with tempfile.TemporaryDirectory(prefix="mlens-soak-") as name:
        folder = Path(name)
        database = folder / "soak.sqlite3"
        env = {
            **os.environ,
            "MLENS_DATABASE": str(database),
            "MLENS_DATA_DIR": str(folder / "data"),
            "MLENS_RATE_LIMIT_PER_MINUTE": "100000",
            "MLENS_RATE_LIMIT_BURST": "1000",
        }
        console.print(f"loading the demo into {database} …")
        for file, handle in demo_files():  # not embedded: the service embeds them as it runs
            named = ["--ref", handle] if handle else []
            subprocess.run(
                [sys.executable, "-m", "cli", "import", str(file), *named, "--no-embed"],
                env=env,
                cwd=folder,
                check=True,
                capture_output=True,
            )
        store = SQLiteStore(str(database))
        token, _ = create_api_key(
            store, name="soak", scopes=["search.read", "summary.run", "sources.read"]
        )
        expected = {
            canonical_key(s.source.handle, s.source.internal_id): s.message_count
            for s in store.list_sources()
        }
        spans = {}
        for stats in store.list_sources():
            ref = f"@{stats.source.handle}"
            if ref in SOURCES:
                spans[ref] = (stats.first_message_at, stats.last_message_at)
        store.close()

        server = Server(folder, env)
        server.start()
        tallies = {k: Tally() for k in ("search", "summary", "mcp", "import")}
        stop = threading.Event()
        workers = [
            threading.Thread(target=_searches, args=(server, token, tallies["search"], stop, s))
            for s in (1, 2)
        ]
        workers.append(
            threading.Thread(
                target=_summaries, args=(server, token, tallies["summary"], stop, spans)
            )
        )
        workers.append(threading.Thread(target=_mcp, args=(server, token, tallies["mcp"], stop)))
        workers.append(
            threading.Thread(
                target=_imports, args=(server, folder, env, stop, expected, tallies["import"])
            )
        )
        for worker in workers:
            worker.start()
        seconds = minutes * 60
        began = time.monotonic()
        rss: list[tuple[float, int]] = []
        restarted = False
        try:
            while (elapsed := time.monotonic() - began) < seconds:
                if not restarted and elapsed >= seconds / 2:
                    console.print(f"[{elapsed:5.0f} s] restarting the service …")
                    server.restart()
                    restarted = True
                    restart_at = time.monotonic() - began
                rss.append((elapsed, server.rss()))
                time.sleep(10)
        finally:
            stop.set()
            for worker in workers:
                worker.join(timeout=300)
        held: dict[str, int | None] = {}
        with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
            for ref in expected:
                answer = client.get(f"{server.base}/v1/sources/by-ref", params={"source_ref": ref})
                held[ref] = answer.json()["message_count"] if answer.status_code == 200 else None
        server.stop()

    lost = {ref: (count, held[ref]) for ref, count in expected.items() if held[ref] != count}
    after_warmup = [r for t, r in rss if t >= WARMUP_SECONDS and r]
    second_half = [r for t, r in rss if restarted and t >= restart_at + WARMUP_SECONDS and r]
    growth = (
        (second_half[-1] / statistics.median(second_half[:3]) - 1)
        if len(second_half) >= 4
        else None
    )

    table = Table(title=f"soak, {minutes:g} min")
    for column in ("kind", "done", "errors", "during restart", "p95", "verdict"):
        table.add_column(column)
    failures = 0
    for kind, tally in tallies.items():
        limit = P95_LIMIT_S.get(kind)
        p95 = _p95(tally.seconds)
        ok = not tally.errors and (limit is None or p95 <= limit) and bool(tally.seconds)
        failures += not ok
        errors = ", ".join(f"{k} ×{v}" for k, v in tally.errors.items()) or "0"
        table.add_row(
            kind,
            f"{len(tally.seconds):,}",
            errors,
            str(tally.during_restart),
            f"{p95:.2f} s",
            "PASS" if ok else "FAIL",
        )
    console.print(table)
    if after_warmup:
        console.print(
            f"RSS after warm-up {after_warmup[0] / 1e6:.0f} MB, "
            f"at the end {after_warmup[-1] / 1e6:.0f} MB"
        )
    if growth is not None:
        flat = growth <= RSS_GROWTH_LIMIT
        failures += not flat
        console.print(
            f"RSS growth over the second half: {growth:+.1%} "
            f"(limit {RSS_GROWTH_LIMIT:+.0%}) {'PASS' if flat else 'FAIL'}"
        )
    else:
        console.print("RSS growth: too short a run to judge")
    console.print(f"sources: {len(expected)} expected, messages lost: {lost or 'none'}")
    failures += bool(lost)
    print(json.dumps({"minutes": minutes, "failures": failures}))
    return 1 if failures else 0


def main() -> None:
    """Parse ``--minutes`` and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=MINUTES)
    sys.exit(run(parser.parse_args().minutes))


if __name__ == "__main__":
    main()
