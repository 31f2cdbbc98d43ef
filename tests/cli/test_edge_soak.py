"""The connection edge under a flood: a real ``mlens serve`` at an open-file limit of
1,024 (soft and hard, so it cannot raise it) holds 1,100 idle TCP connections on
loopback while searches go on; they are answered, and its log stays small."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from chat_fixture import HANDLE, seed_trip
from serving import serve_env, serve_log, stop_serve

from benchmarks.bench_service import free_port, wait_until_healthy
from toolkit.config import Settings

FD_LIMIT = 1024
IDLE = 1100
SEARCHES = 20


def _limit_descriptors() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def _open_idle(port: int, count: int, into: list[socket.socket]) -> None:
    """Open ``count`` connections that never send a byte (each one that gets in)."""
    for _ in range(count):
        try:
            into.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            continue  # the listen queue was full for a moment: the flood goes on


@pytest.mark.slow
def test_idle_connections_at_the_descriptor_limit_never_stop_searches(tmp_path: Path) -> None:
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < IDLE + 200:
        pytest.skip("this test process cannot hold 1,100 connections")
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    token = seed_trip(Settings(data_dir=tmp_path / "data"), tmp_path)
    port = free_port()
    env = serve_env(
        MLENS_DATA_DIR=str(tmp_path / "data"),
        MLENS_RATE_LIMIT_PER_MINUTE="0",
        MLENS_HEADER_TIMEOUT_SECONDS="5",
    )
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_limit_descriptors,
        )
    base = f"http://127.0.0.1:{port}"
    idle: list[socket.socket] = []
    try:
        wait_until_healthy(base, proc, timeout=120, what="mlens serve")
        flood = threading.Thread(target=_open_idle, args=(port, IDLE, idle))
        flood.start()
        body = {"source_ref": HANDLE, "query": "train tickets to Berlin", "limit": 3}
        headers = {"Authorization": f"Bearer {token}"}
        answered = 0
        started = time.monotonic()
        for _ in range(SEARCHES):
            try:
                with httpx.Client(timeout=30) as http:
                    response = http.post(f"{base}/v1/search/messages", json=body, headers=headers)
                answered += response.status_code == 200
            except httpx.TransportError:
                pass
        flood.join(60)
        elapsed = time.monotonic() - started
        assert len(idle) >= FD_LIMIT, f"only {len(idle)} idle connections were opened"
        assert answered >= SEARCHES - 1, (answered, serve_log(tmp_path))
        assert elapsed < 60
        assert proc.poll() is None, serve_log(tmp_path)
        with httpx.Client(timeout=10) as http:
            assert http.get(f"{base}/healthz").status_code == 200
    finally:
        for sock in idle:
            sock.close()
        stop_serve(proc)
    text = log_path.read_text(errors="replace")
    print(
        f"{answered}/{SEARCHES} searches answered in {elapsed:.1f} s beside {len(idle)} idle "
        f"connections; log {log_path.stat().st_size} bytes"
    )
    print("\n".join(line for line in text.splitlines() if "connection edge" in line))
    assert log_path.stat().st_size < 200_000, text[-3000:]
    assert "idle connections closed to admit new ones" in text  # the bound was reached
    assert "Traceback" not in text, text[-3000:]
    assert "Too many open files" not in text.replace("accept failed (Too many open files)", "")
