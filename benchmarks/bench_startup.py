"""A newcomer's first minute: how fast ``mlens`` starts and ``mlens serve --demo`` answers.

- **CLI start**: wall time of ``mlens --help`` and of ``mlens sources --json`` on a
  store holding the demo (median of a few runs, each a fresh process).
- **Serve to first search**: ``mlens serve --demo --dev-key`` started on a fresh data
  folder, then a default search of ``@mlens_demo_en`` asked every 0.2 s until one
  answers 200: seconds from the start of the process to that answer, how much of the
  search's scan window was embedded then (``MLens-Embedded`` / ``MLens-Scanned``), and
  seconds until ``/healthz`` says the background embedding is done.

``python -m benchmarks.bench_startup`` prints them; ``make bench`` includes them.
Every server is started here on a free 127.0.0.1 port and stopped by its PID.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks.bench_service import free_port, stop

QUERY = "what is your favourite movie"


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    return env | {"MLENS_DATA_DIR": str(data_dir), "MLENS_RATE_LIMIT_PER_MINUTE": "0"}


def cli_seconds(args: list[str], env: dict[str, str], *, runs: int = 5) -> float:
    """Median wall time of ``mlens <args>`` (a fresh ``python -m cli`` process each run).

    Raises:
        subprocess.CalledProcessError: the command failed.
    """
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cli", *args], env=env, check=True, capture_output=True
        )
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


@dataclass(frozen=True, slots=True)
class FirstSearch:
    """``mlens serve --demo`` from a fresh folder: when it first answered a search."""

    seconds: float
    embedded: str
    scanned: str
    all_embedded_seconds: float | None


def _first_answer(
    base: str, key_file: Path, child: subprocess.Popen[bytes], timeout: float
) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError("mlens serve exited")
        if key_file.exists() and key_file.read_text().strip():
            try:
                answer = httpx.post(
                    f"{base}/v1/search/messages",
                    json={"source_ref": "@mlens_demo_en", "query": QUERY},
                    headers={"Authorization": f"Bearer {key_file.read_text().strip()}"},
                    timeout=timeout,
                )
                if answer.status_code == 200:
                    return answer
            except httpx.TransportError:
                pass
        time.sleep(0.2)
    raise RuntimeError(f"no search answered within {timeout:.0f} s")


def _all_embedded(base: str, child: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and child.poll() is None:
        embedding = httpx.get(f"{base}/healthz", timeout=10).json().get("embedding", {})
        if embedding.get("state") == "done":
            return True
        time.sleep(0.5)
    return False


def first_search(folder: Path, *, timeout: float = 600, wait_all: bool = True) -> FirstSearch:
    """Start ``mlens serve --demo --dev-key`` on an empty ``folder``; time the first search.

    Args:
        folder: an empty data folder (the demo is imported into it).
        timeout: seconds to wait for each stage.
        wait_all: also wait until ``/healthz`` reports every message embedded.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "cli", "serve", "--demo", "--dev-key", "--port", str(port)]
    started = time.perf_counter()
    with (folder / "serve.log").open("wb") as log:
        child = subprocess.Popen(command, env=_env(folder), stdout=log, stderr=subprocess.STDOUT)
    try:
        answer = _first_answer(base, folder / "dev-api-key", child, timeout)
        seconds = time.perf_counter() - started
        done = _all_embedded(base, child, timeout) if wait_all else False
        return FirstSearch(
            seconds,
            answer.headers.get("MLens-Embedded", "?"),
            answer.headers.get("MLens-Scanned", "?"),
            time.perf_counter() - started if done else None,
        )
    finally:
        stop(child, wait=30)


def startup_rows(*, wait_all: bool = True) -> list[tuple[str, str, str, bool | None]]:
    """The benchmark's rows: (measurement, result, target, ok)."""
    with tempfile.TemporaryDirectory(prefix="mlens-startup-") as tmp:
        folder = Path(tmp)
        env = _env(folder)
        help_s = cli_seconds(["--help"], env)
        first = first_search(folder, wait_all=wait_all)
        sources_s = cli_seconds(["sources", "--json"], env)
    rows: list[tuple[str, str, str, bool | None]] = [
        ("mlens --help (median of 5)", f"{help_s:.2f} s", "≤ 0.3 s", help_s <= 0.3),
        ("mlens sources --json, demo (median of 5)", f"{sources_s:.2f} s", "≤ 1 s", sources_s <= 1),
        (
            "mlens serve --demo: start to first search",
            f"{first.seconds:.1f} s ({first.embedded} of {first.scanned} scanned embedded)",
            "≤ 60 s",
            first.seconds <= 60,
        ),
    ]
    if first.all_embedded_seconds is not None:
        seconds = f"{first.all_embedded_seconds:.0f} s"
        rows.append(("  every demo message embedded (background)", seconds, "—", None))
    return rows


def main() -> None:
    """Print the rows."""
    for name, result, target, ok in startup_rows(wait_all="--no-wait" not in sys.argv[1:]):
        verdict = "—" if ok is None else "PASS" if ok else "FAIL"
        print(f"{name:<48} {result:<40} {target:<8} {verdict}")


if __name__ == "__main__":
    main()
