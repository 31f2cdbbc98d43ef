"""A throwaway PostgreSQL 15 server for tests and benchmarks, on 127.0.0.1 and a free port.

``initdb`` into a temporary folder (in memory, ``/dev/shm``, when the machine has one
with room), ``pg_ctl start`` with durability off (tests and benchmarks need speed, not
crash safety), and ``stop()`` by the postmaster's PID.
PostgreSQL refuses to run as root, so when run as root the server runs as the
``postgres`` system user (``runuser``) and its folder belongs to that user. Debian's
``postgresql`` package provides the binaries (``make pg`` installs it when missing)::

    with PgServer() as pg:
        url = pg.create_database("t1")   # postgresql://postgres@127.0.0.1:<port>/t1
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import psycopg

from toolkit.errors import ConfigError


def pg_bin_dir() -> Path:
    """The folder holding ``initdb``/``pg_ctl`` (Debian's versioned one, or on PATH)."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    raise ConfigError("PostgreSQL is not installed: apt-get install -y postgresql (make pg)")


SCRATCH_ROOM = 4 * 2**30
"""The free memory ``/dev/shm`` must have to hold a cluster (a whole test session's
databases take about 1.3 GB)."""


def scratch_dir() -> str | None:
    """``/dev/shm`` when it is a writable folder with ``SCRATCH_ROOM`` free, else ``None``
    (the system's temporary folder). A throwaway cluster's files never need a disk: on
    one, the gigabyte a test session writes is flushed behind the tests, slowing them,
    and deleting it at the end took from 10 s to over a minute on a busy machine."""
    shm = "/dev/shm"
    try:
        stats = os.statvfs(shm)
    except OSError:
        return None
    if not os.access(shm, os.W_OK) or stats.f_bavail * stats.f_frsize < SCRATCH_ROOM:
        return None
    return shm


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie nobody reaped counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a postmaster's backends and workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # ``pid (comm) state ppid ...``: comm may hold spaces and parentheses.
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


class PgServer:
    """One PostgreSQL cluster in a temporary folder, owned by this test session."""

    def __init__(self) -> None:
        self.bin = pg_bin_dir()
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="mlens-pg-", dir=scratch_dir()))
        self.data = self.root / "data"
        self.sockets = self.root / "sock"
        self.as_root = os.geteuid() == 0
        self.pid: int | None = None
        self._frozen: list[int] = []

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> PgServer:
        """initdb and start the server; wait until it accepts connections."""
        self.sockets.mkdir()
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        self.resume()
        return self

    def resume(self) -> None:
        """Start the (initialised) server on its port; wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200"
        )
        log = self.root / "server.log"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start")
        pid_line = (self.data / "postmaster.pid").read_text().splitlines()[0]
        self.pid = int(pid_line)

    def halt(self) -> None:
        """Stop the server by its PID (fast shutdown: sessions are ended, data kept) and
        wait until it is gone; ``resume`` starts it again on the same port."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGINT)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and _alive(self.pid):
                time.sleep(0.05)
        except ProcessLookupError:
            pass
        self.pid = None

    def freeze(self) -> list[int]:
        """Stop (``SIGSTOP``) the postmaster and every process it started: a server that
        accepts connections in its kernel and answers nothing. Returns the PIDs stopped
        (``thaw`` continues them)."""
        if self.pid is None:
            return []
        frozen = [self.pid, *_children(self.pid)]
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        self._frozen = frozen
        return frozen

    def thaw(self) -> None:
        """Continue (``SIGCONT``) the processes ``freeze`` stopped."""
        for pid in self._frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._frozen = []

    @property
    def admin_url(self) -> str:
        """The URL of the ``postgres`` maintenance database."""
        return self.url("postgres")

    def url(self, database: str) -> str:
        """A URL for ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; return its URL."""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for sql in (
                f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
                f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY FILE_COPY',
            ):
                conn.execute(sql.encode())
        return self.url(name)

    def stop(self) -> None:
        """Stop the server by its PID (immediate shutdown: the folder goes anyway)."""
        self.thaw()  # a stopped process would not hear its shutdown
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGQUIT)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and _alive(self.pid):
                    time.sleep(0.05)
            except ProcessLookupError:
                pass
            self.pid = None
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
