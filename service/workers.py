"""``mlens serve --workers N``: N uvicorn processes, each listening on its own socket.

uvicorn's own supervisor hands every worker one shared listening socket. Whichever
worker's event loop wakes first accepts the whole queue of waiting connections, so
clients that connect together (a proxy opening its keep-alive pool, 40 load-test
clients) can land almost all on one worker while the other idles: measured with 40
clients on 2 cores, one worker used 17 s of CPU and the other 2 s.

Here each worker gets a socket of its own, all bound to the same address with
``SO_REUSEPORT``, and the kernel spreads new connections over them by a hash of the
client's address and port. The supervisor keeps every socket open, so connections
that reach a worker that died wait in its queue for the replacement it starts at once
instead of being refused. SIGINT/SIGTERM stop every worker (each finishes its
in-flight requests within the graceful timeout); a worker that exits with an error
while starting stops the whole service with uvicorn's startup-failure exit code.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
from types import FrameType

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors.multiprocess import Process

logger = logging.getLogger("uvicorn.error")
CHECK_SECONDS = 0.5


def reuseport_sockets(
    host: str, port: int, count: int, *, backlog: int = 2048
) -> list[socket.socket]:
    """``count`` listening sockets on one address (``SO_REUSEPORT``), inheritable, each
    queueing up to ``backlog`` connections.

    Port 0 takes the free port the first socket is given for the others too.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            address = sock.getsockname()  # a port of 0 is now the one chosen
            sock.listen(backlog)
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Supervisor:
    """Runs one uvicorn worker per socket and replaces any that dies.

    Args:
        config: the uvicorn configuration every worker serves (an import string app).
        sockets: one listening socket per worker (``reuseport_sockets``).
    """

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        self.config = config
        self.sockets = sockets
        self.processes: list[Process] = []
        self.served: list[bool] = [False] * len(sockets)
        self.should_exit = threading.Event()
        self.failed = False

    def _start(self, index: int) -> Process:
        process = Process(self.config, [self.sockets[index]])
        process.start()
        return process

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        logger.info("Received %s, stopping the workers.", signal.Signals(signum).name)
        self.should_exit.set()

    def _replace_dead(self) -> None:
        """Replace a worker that died, was killed or stopped answering; stop everything
        when one exits with an error before it ever served (it would fail again)."""
        timeout = self.config.timeout_worker_healthcheck
        for index, process in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            if process.process.is_alive():
                if not self.served[index]:
                    self.served[index] = process.is_ready(timeout=timeout)
                    continue  # still loading its model: no health check yet
                if process.ping(timeout=timeout):
                    continue
            process.kill()  # hung or gone: make sure it is gone
            process.join()
            # An error exit before serving would come back on every restart; a kill (a
            # negative exit code: the OOM killer, an operator) is worth a replacement.
            failed_start = not self.served[index] and (process.exitcode or 0) > 0
            if failed_start or process.exitcode == STARTUP_FAILURE:
                logger.error("Worker [%s] failed to start; stopping.", process.pid)
                self.failed = True
                self.should_exit.set()
                return
            logger.info("Worker [%s] died; starting a replacement.", process.pid)
            self.processes[index] = self._start(index)
            self.served[index] = False

    def run(self) -> int:
        """Serve until SIGINT/SIGTERM; the exit status (uvicorn's on a startup failure)."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._on_signal)
        self.processes = [self._start(i) for i in range(len(self.sockets))]
        while not self.should_exit.wait(CHECK_SECONDS):
            self._replace_dead()
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join()
        for sock in self.sockets:
            sock.close()
        return STARTUP_FAILURE if self.failed else 0


def serve_workers(config: uvicorn.Config) -> None:
    """Serve ``config`` with ``config.workers`` processes, one socket each; exits with the
    supervisor's status when it is not 0."""
    try:
        sockets = reuseport_sockets(
            config.host, config.port, config.workers, backlog=config.backlog
        )
    except OSError as exc:  # as uvicorn says it for one worker: one line, status 3
        logger.error(
            "error while attempting to bind on address (%r, %d): %s",
            config.host,
            config.port,
            (exc.strerror or str(exc)).lower(),
        )
        sys.exit(STARTUP_FAILURE)
    logger.info("Serving on http://%s:%d with %d workers", config.host, config.port, config.workers)
    status = Supervisor(config, sockets).run()
    if status:
        sys.exit(status)
