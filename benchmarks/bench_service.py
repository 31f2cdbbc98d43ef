"""Peak memory of a real service process: ``uvicorn`` on 127.0.0.1, one search, its RSS;
then the latency of searches over HTTP at a given scan (``http_scan``).

The process is started with the store the benchmark built, asked one authenticated
search (so the model is loaded and has run), measured with ``psutil``; then, when
asked, ``http_runs`` searches at ``http_scan`` messages are timed one after another
(each a new query vector: the service's query cache is off) after a warm-up pass over
the queries; and it is stopped by its PID.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil  # type: ignore[import-untyped]

from toolkit.apikeys import create_api_key
from toolkit.store import SQLiteStore

# Search texts of the latency and load benchmarks (English and Russian, varied topics).
QUERIES = [
    "what is your favourite movie",
    "where are you going on vacation",
    "столица Франции",
    "как приготовить борщ",
    "do you play any sports",
    "новости науки и космоса",
    "best pizza in town",
    "погода на выходных",
    "learning to play the guitar",
    "выборы и политика",
]


@dataclass(frozen=True, slots=True)
class ServiceMemory:
    """What the service process used: resident memory now and at its peak (bytes)."""

    rss: int
    peak_rss: int
    search_seconds: float
    http_p50_ms: float = 0.0
    http_p95_ms: float = 0.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_healthy(
    base: str, child: subprocess.Popen[bytes], *, timeout: float, what: str = "the service"
) -> None:
    """Poll ``{base}/healthz`` until it answers 200.

    Raises:
        RuntimeError: ``child`` exited, or ``timeout`` seconds passed, first.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if child.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.2)


def _peak_rss(process: psutil.Process) -> int:
    # Linux keeps the high-water mark of resident memory in /proc/<pid>/status.
    try:
        for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(process.memory_info().rss)


def measure_service(
    database: Path,
    source_ref: str,
    query: str,
    *,
    timeout: float = 120,
    http_scan: int = 10_000,
    http_runs: int = 0,
) -> ServiceMemory:
    """Start the service on ``database``, run one search, measure it, stop it.

    Args:
        database: an SQLite store holding ``source_ref`` (an API key is added to it).
        source_ref: the source to search.
        query: the search text.
        timeout: seconds to wait for the service to answer.
        http_scan: ``scan_messages_limit`` of the timed searches.
        http_runs: searches to time over HTTP (0: none).
    """
    store = SQLiteStore(database)
    token, _ = create_api_key(store, name="bench", scopes=["search.read"])
    store.close()
    port = free_port()
    env = {
        **os.environ,
        "MLENS_DATABASE": str(database),
        "MLENS_DATA_DIR": str(database.parent),
        "MLENS_RATE_LIMIT_PER_MINUTE": "0",
        "MLENS_QUERY_CACHE_SIZE": "0",
    }
    # The app `mlens serve` serves (cli.asgi.APP: /v1 and /mcp).
    command = [sys.executable, "-m", "uvicorn", "cli.asgi:create_app", "--factory"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    child = subprocess.Popen(command, env=env)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(base, child, timeout=timeout)
        started = time.perf_counter()
        answer = httpx.post(
            f"{base}/v1/search/messages",
            json={"source_ref": source_ref, "query": query, "scan_messages_limit": 1000},
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
        )
        elapsed = time.perf_counter() - started
        answer.raise_for_status()
        process = psutil.Process(child.pid)
        rss, peak = int(process.memory_info().rss), _peak_rss(process)
        p50 = p95 = 0.0
        if http_runs:
            p50, p95 = _http_latency(base, token, source_ref, http_scan, http_runs, timeout)
        return ServiceMemory(rss, peak, elapsed, p50, p95)
    finally:
        stop(child, wait=15)


def stop(child: subprocess.Popen[bytes], *, wait: float) -> None:
    """Stop a server the benchmark started: SIGTERM, then SIGKILL after ``wait`` seconds."""
    child.terminate()
    try:
        child.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _http_latency(
    base: str, token: str, source_ref: str, scan: int, runs: int, timeout: float
) -> tuple[float, float]:
    """p50 and p95 (ms) of ``runs`` searches over one keep-alive connection."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as client:

        def ask(query: str) -> None:
            body = {"source_ref": source_ref, "query": query, "scan_messages_limit": scan}
            client.post("/v1/search/messages", json=body).raise_for_status()

        for query in QUERIES:
            ask(query)
        samples = []
        for i in range(runs):
            started = time.perf_counter()
            ask(QUERIES[i % len(QUERIES)])
            samples.append(time.perf_counter() - started)
    ms = sorted(s * 1000 for s in samples)
    return ms[len(ms) // 2], ms[min(len(ms) - 1, int(len(ms) * 0.95))]


__all__ = ["ServiceMemory", "free_port", "measure_service"]
