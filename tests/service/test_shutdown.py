"""A stopping server abandons in-flight work within seconds (issue 11, item 1).

A real uvicorn process on 127.0.0.1 (with the graceful-shutdown timeout `mlens serve`
sets) serves an app whose search sleeps for ten minutes; SIGTERM during such a search
ends the process within that timeout plus a little, and the caller gets a 503.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from toolkit.apikeys import create_api_key
from toolkit.models import SourceKind
from toolkit.store import SQLiteStore

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        assert process.poll() is None, "the server died while starting"
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


def test_sigterm_during_a_stuck_request_stops_the_server_within_seconds(tmp_path: Path) -> None:
    database = tmp_path / "mlens.sqlite3"
    store = SQLiteStore(str(database))
    store.upsert_source(title="T", kind=SourceKind.CHANNEL, handle="lens_public")
    token, _ = create_api_key(store, name="k", scopes={"search.read"})
    store.close()
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MLENS_")},
        "MLENS_DATABASE": str(database),
        "MLENS_DATA_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "uvicorn", "stuck_app:create", "--factory"]
    command += ["--app-dir", str(Path(__file__).parent)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "1"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        outcome: list[object] = []

        def search() -> None:
            try:
                outcome.append(
                    httpx.post(
                        f"{base}/v1/search/messages",
                        json={"source_ref": "@lens_public", "query": "q"},
                        headers={"Authorization": f"Bearer {token}"},
                        timeout=60,
                    ).status_code
                )
            except httpx.HTTPError as exc:
                outcome.append(exc)

        caller = threading.Thread(target=search, daemon=True)
        caller.start()
        time.sleep(1.0)  # the search is now sleeping in the server
        assert caller.is_alive()
        process.send_signal(signal.SIGTERM)
        # 1 s of grace, then the stuck search is abandoned; not its ten minutes.
        process.wait(timeout=15)
        caller.join(timeout=5)
        assert outcome == [503], outcome  # told, as a problem, that the server stopped
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
