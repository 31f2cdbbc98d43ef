"""``mlens import`` of a named pipe, a device, a folder or a socket: one line, at once.

A pipe used to block ``open`` forever; each case here has a timeout so that a
regression fails instead of hanging the run.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from cli.state import store
from toolkit.errors import InvalidRequest
from toolkit.ingest.export.file import open_export
from toolkit.ingest.export.read import import_export
from toolkit.store import SQLiteStore

pytestmark = pytest.mark.timeout(20)


def _special(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    if kind == "named pipe":
        os.mkfifo(tmp_path / "result.json")
        return tmp_path / "result.json"
    if kind == "folder":
        (tmp_path / "result.json").mkdir()
        return tmp_path / "result.json"
    if kind == "character device":
        if not os.path.exists("/dev/zero") or not stat.S_ISCHR(os.stat("/dev/zero").st_mode):
            pytest.skip("no /dev/zero character device here")
        return Path("/dev/zero")  # read as an export, it would never end
    bound = socket.socket(socket.AF_UNIX)
    request.addfinalizer(bound.close)
    bound.bind(str(tmp_path / "sock"))
    return tmp_path / "sock"


KINDS = ["named pipe", "folder", "character device", "socket"]


@pytest.mark.parametrize("kind", KINDS)
def test_mlens_import_of_a_non_regular_file_is_one_line_at_once(
    runner: CliRunner, cli_env: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    path = _special(kind, cli_env, request)
    result = runner.invoke(app, ["import", str(path), "--no-progress", "--no-embed"])
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    if kind == "folder":  # a folder is an export's when it holds one (HTML or JSON)
        said = "it holds no messages.html (an HTML export) and no result.json (a JSON export)"
    else:
        said = f"it is a {kind}, not a file; give the export's result.json"
    assert lines[0] == f"error: cannot import {path}: {said}"
    assert store().list_sources() == []


def test_a_pipe_with_a_writer_waiting_is_still_refused(tmp_path: Path) -> None:
    """A pipe is refused even when something would feed it: it is never read."""
    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    fed = threading.Event()

    def feed() -> None:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader: the importer never opened it for long
            return
        fed.set()
        os.close(fd)

    with pytest.raises(InvalidRequest) as refused:
        open_export(fifo)
    assert refused.value.field == "path"
    feeder = threading.Thread(target=feed)
    feeder.start()
    feeder.join(5)
    assert not fed.is_set()  # no reader is left open on the pipe


def test_the_toolkit_refuses_a_pipe_and_leaves_the_store_alone(
    store: SQLiteStore, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(InvalidRequest, match="named pipe"):
        import_export(store, tmp_path / "pipe.json")
    assert store.list_sources() == []


def test_a_regular_file_opens_with_its_size(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_bytes(b"{}")
    raw, size = open_export(tmp_path / "result.json")
    with raw:
        assert size == 2
        assert raw.read() == b"{}"


def test_a_missing_file_is_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="cannot read"):
        open_export(tmp_path / "nothing.json")
