"""Helpers of the tests that run ``mlens serve`` as a real process (and its workers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]


def serve_env(**settings: str) -> dict[str, str]:
    """This environment without any ``MLENS_`` setting, plus ``settings`` and the repo
    on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLENS_")}
    return env | {"PYTHONPATH": str(ROOT)} | settings


def start_serve(
    folder: Path, env: dict[str, str], port: int, *, workers: int = 1
) -> subprocess.Popen[bytes]:
    """``mlens serve`` on ``port`` in its own process group (supervisor and workers); its
    output goes to ``folder / "serve.log"`` (``serve_log``)."""
    command = [sys.executable, "-m", "cli", "serve", "--port", str(port)]
    with (folder / "serve.log").open("ab") as log:
        return subprocess.Popen(
            [*command, "--workers", str(workers)],
            cwd=folder,
            env=env,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def serve_log(folder: Path) -> str:
    """What the ``mlens serve`` processes started in ``folder`` wrote (for a failure)."""
    path = folder / "serve.log"
    return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def stop_serve(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the whole group; wait for the supervisor."""
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def live_workers(proc: subprocess.Popen[bytes]) -> list[Any]:
    """The supervisor's live workers (a killed one is a zombie until it is reaped)."""
    alive = []
    for child in psutil.Process(proc.pid).children():
        try:
            if "multiprocessing.resource_tracker" not in " ".join(child.cmdline()):
                alive.append(child)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue
    return alive


def alternate(
    bases: list[str],
    path: str,
    *,
    headers: dict[str, str],
    params: dict[str, str],
    count: int,
    local_address: str | None = None,
) -> dict[str, list[int]]:
    """GET ``path`` ``count`` times, alternating between ``bases``: each base's statuses.

    ``local_address`` is the client's own address (another 127.x address is another
    client to the service).
    """
    transport = httpx.HTTPTransport(local_address=local_address) if local_address else None
    statuses: dict[str, list[int]] = {base: [] for base in bases}
    with httpx.Client(timeout=10, transport=transport) as http:
        for i in range(count):
            base = bases[i % len(bases)]
            response = http.get(f"{base}{path}", params=params, headers=headers)
            statuses[base].append(response.status_code)
    return statuses
