"""``mlens serve --workers N``: one SO_REUSEPORT socket per worker, so that connections
opened together spread over every worker; dead workers are replaced; a worker that
cannot start stops the service."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from serving import live_workers, serve_env, serve_log, start_serve, stop_serve
from typer.testing import CliRunner

import service.workers
from benchmarks.bench_service import free_port, wait_until_healthy
from cli.app import app
from service.edge import EdgeConfig
from service.workers import reuseport_sockets


def test_sockets_share_one_port_and_the_kernel_spreads_connections_over_them() -> None:
    listeners = reuseport_sockets("127.0.0.1", 0, 2)
    try:
        ports = {sock.getsockname()[1] for sock in listeners}
        assert len(ports) == 1  # port 0: the first socket's port is taken by the second
        port = ports.pop()
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        accepted = [0, 0]
        for i, sock in enumerate(listeners):
            sock.setblocking(False)
            while True:
                try:
                    conn, _ = sock.accept()
                except BlockingIOError:
                    break
                conn.close()
                accepted[i] += 1
        for client in clients:
            client.close()
    finally:
        for sock in listeners:
            sock.close()
    assert sum(accepted) == 40
    # A shared socket would hand all 40 to whichever worker wakes first; here each
    # socket gets its share (all 40 on one side has a chance of 2**-39).
    assert min(accepted) >= 5, accepted


def test_a_busy_address_is_a_clear_error_and_leaves_no_socket_open() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        before = len(os.listdir("/proc/self/fd"))
        with pytest.raises(OSError, match="in use"):
            reuseport_sockets("127.0.0.1", taken.getsockname()[1], 2)
        assert len(os.listdir("/proc/self/fd")) == before


def test_serve_with_workers_hands_the_config_to_the_supervisor(
    cli_env: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs: list[EdgeConfig] = []
    monkeypatch.setattr(service.workers, "serve_workers", configs.append)  # imported by serve()
    monkeypatch.setattr(uvicorn, "Server", lambda config: pytest.fail("one process served"))
    monkeypatch.setenv("MLENS_SHUTDOWN_TIMEOUT_SECONDS", "4")
    monkeypatch.setenv("MLENS_BACKGROUND_EMBEDDING", "true")  # restored after the test
    result = runner.invoke(app, ["serve", "--port", "8124", "--workers", "3"])
    assert result.exit_code == 0, result.output
    # The workers read it: none embeds in the background (each would embed the same).
    assert os.environ["MLENS_BACKGROUND_EMBEDDING"] == "false"
    (config,) = configs
    assert (config.app, config.factory, config.workers) == ("cli.asgi:create_app", True, 3)
    assert (config.host, config.port, config.timeout_graceful_shutdown) == ("127.0.0.1", 8124, 4)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return serve_env(MLENS_DATA_DIR=str(tmp_path / "data"), **extra)


@pytest.mark.slow
def test_a_worker_that_dies_is_replaced_and_the_port_keeps_answering(tmp_path: Path) -> None:
    port = free_port()
    proc = start_serve(tmp_path, _env(tmp_path), port, workers=2)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base, proc, timeout=90, what="mlens serve --workers 2")
        deadline = time.monotonic() + 60
        while len(first := live_workers(proc)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # both are started together; wait for the second to show
        assert len(first) == 2, serve_log(tmp_path)
        first[0].kill()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = live_workers(proc)
            if len(now) == 2 and first[0].pid not in {p.pid for p in now}:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the dead worker was not replaced:\n{serve_log(tmp_path)}")
        # New connections (a fresh client each) hash onto both sockets; the one whose
        # worker died waits for the replacement instead of being refused.
        statuses = []
        for _ in range(12):
            with httpx.Client(timeout=90) as http:
                statuses.append(http.get(f"{base}/healthz").status_code)
        assert statuses == [200] * 12
    finally:
        stop_serve(proc)
    assert proc.returncode == 0


@pytest.mark.slow
def test_a_store_that_cannot_open_stops_serve_before_any_worker_starts(tmp_path: Path) -> None:
    # Nothing listens on this port, so the store cannot open: one line, no worker.
    bad = f"postgresql://nobody@127.0.0.1:{free_port()}/none"
    command = [sys.executable, "-m", "cli", "serve", "--port", str(free_port()), "--workers", "2"]
    started = time.monotonic()
    result = subprocess.run(
        command,
        env=_env(tmp_path, MLENS_DATABASE_URL=bad),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("error: cannot open the store at postgresql://")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_a_busy_port_is_one_line_and_status_3(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "cli", "serve", "--port", str(port), "--workers", "2"]
        result = subprocess.run(
            command, env=_env(tmp_path), capture_output=True, text=True, timeout=120
        )
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert f"error while attempting to bind on address ('127.0.0.1', {port})" in result.stderr
    assert "address already in use" in result.stderr
