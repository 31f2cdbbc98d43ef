"""The connection edge of ``mlens serve`` (``service.edge``), on a real uvicorn server in a
thread on 127.0.0.1: head timeout, connection bound, refusals, quiet logs."""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from benchmarks.bench_service import free_port
from service.edge import (
    REFUSAL,
    EdgeConfig,
    EdgeLimits,
    EdgeLog,
    EdgeState,
    accept_burst,
    connection_bound,
    raise_fd_limit,
)

HEAD = b"GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"


async def tiny_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/slow`` answers after 3 s, anything else at once."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(3)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def serve(limits: EdgeLimits) -> Iterator[int]:
    """A uvicorn server through ``EdgeConfig`` in a thread; its port until it stops."""
    port = free_port()
    config = EdgeConfig(
        tiny_app,  # type: ignore[arg-type]
        limits=limits,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        log_config=None,
        timeout_keep_alive=5,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def bounded() -> Iterator[int]:
    """At most 3 connections, heads within 10 s."""
    yield from serve(EdgeLimits(header_timeout=10, max_connections=3, log_interval=60))


@pytest.fixture
def hasty() -> Iterator[int]:
    """Heads within 0.5 s."""
    yield from serve(EdgeLimits(header_timeout=0.5, max_connections=100, log_interval=60))


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed ``sock`` (EOF) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        while chunk := sock.recv(4096):
            if not chunk:
                break
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _get(port: int, path: bytes = b"/") -> bytes:
    with _connect(port) as sock:
        sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
        return answer


@pytest.mark.slow
def test_a_connection_that_never_completes_its_head_is_closed(hasty: int) -> None:
    quiet, partial = _connect(hasty), _connect(hasty)
    partial.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")  # never the blank line
    started = time.monotonic()
    assert _closed_within(quiet, 5)
    assert _closed_within(partial, 5)
    assert time.monotonic() - started < 3
    quiet.close()
    partial.close()


def test_a_new_connection_over_the_bound_takes_the_oldest_idle_ones_place(bounded: int) -> None:
    idle = [_connect(bounded) for _ in range(3)]
    time.sleep(0.1)
    assert _get(bounded).startswith(b"HTTP/1.1 200")
    assert _closed_within(idle[0], 0.3)  # the oldest made room
    assert not _closed_within(idle[2], 0.05)
    for sock in idle:
        sock.close()


@pytest.mark.slow
def test_when_every_connection_is_busy_a_new_one_gets_the_fixed_503(bounded: int) -> None:
    busy = [_connect(bounded) for _ in range(3)]
    for sock in busy:
        sock.sendall(HEAD)
    time.sleep(0.5)
    with _connect(bounded) as extra:
        answer = b""
        while chunk := extra.recv(4096):
            answer += chunk
    assert answer == REFUSAL
    for sock in busy:  # the busy ones are answered all the same
        sock.settimeout(5)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.close()


def test_edge_events_are_one_line_per_interval_with_counts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def flood() -> None:
        log = EdgeLog(0.3, logging.getLogger("edge-test"))
        state = EdgeState(EdgeLimits(header_timeout=1, max_connections=1, log_interval=0.3))
        state.log = log
        loop = asyncio.get_running_loop()
        for _ in range(5000):
            state.exception_handler(
                loop,
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(24, "Too many open files"),
                },
            )
        await asyncio.sleep(0.45)

    with caplog.at_level(logging.WARNING, logger="edge-test"):
        asyncio.run(flood())
    lines = [r.getMessage() for r in caplog.records if r.name == "edge-test"]
    assert len(lines) == 2, lines
    assert lines[0].endswith("accept failed (Too many open files): 1")
    assert lines[1].endswith("accept failed (Too many open files): 4999")


def test_other_loop_errors_still_reach_asyncio(caplog: pytest.LogCaptureFixture) -> None:
    state = EdgeState(EdgeLimits(header_timeout=1, max_connections=1, log_interval=60))
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            state.exception_handler(loop, {"message": "something else broke"})
    finally:
        loop.close()
    assert any("something else broke" in r.getMessage() for r in caplog.records)


def test_the_bound_stays_below_the_descriptor_limit() -> None:
    assert connection_bound(1024) == 768
    assert connection_bound(1_048_576) == 10_000
    assert connection_bound(1024, 5000) == 992  # a setting above the limit is cut
    assert connection_bound(1024, 100) == 100
    assert accept_burst(2048, 1024, 768) == 128
    assert accept_burst(100, 1_048_576, 10_000) == 100


def test_the_soft_descriptor_limit_is_raised_to_the_hard_one() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        limit = raise_fd_limit()
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard
        assert limit == hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_serve_passes_the_edge_settings_to_uvicorn(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import cli.serve
    import service.workers
    from cli.app import app

    seen: list[EdgeConfig] = []
    monkeypatch.setattr(service.workers, "serve_workers", seen.append)  # imported by serve()
    monkeypatch.setattr(cli.serve, "store", lambda: None)
    monkeypatch.setenv("MLENS_BACKGROUND_EMBEDDING", "true")  # serve --workers 2 sets it
    for name, value in {
        "MLENS_KEEP_ALIVE_TIMEOUT_SECONDS": "7",
        "MLENS_HEADER_TIMEOUT_SECONDS": "3",
        "MLENS_MAX_CONNECTIONS": "50",
        "MLENS_MAX_HEADER_BYTES": "8192",
    }.items():
        monkeypatch.setenv(name, value)
    cli.serve.reset()
    try:
        result = CliRunner().invoke(app, ["serve", "--port", "8125", "--workers", "2"])
    finally:
        cli.serve.reset()
    assert result.exit_code == 0, result.output
    (config,) = seen
    assert (config.timeout_keep_alive, config.h11_max_incomplete_event_size) == (7, 8192)
    assert (config.limits.header_timeout, config.limits.max_connections) == (3, 50)
    assert config.proxy_headers is False
    assert config.workers == 2
