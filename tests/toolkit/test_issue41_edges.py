"""Edge cases left from issue 33, answered in one line, a tool error or a 422 (issue 41):
a period at the calendar's edge in a source with a UTC offset, a key id past 64 bits,
view and forward counts no message can have from a sync, a lone surrogate sent to
``mlens mcp``, a named pipe called ``x.zip``."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from telethon_fakes import NEWS, FakeTelegram, text_message

from mcp_face.stdio import surrogate_error
from toolkit import Workspace
from toolkit.apikeys import revoke_api_key
from toolkit.errors import ApiKeyNotFound, InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.live.client import TelethonMessengerClient
from toolkit.ingest.live.sync import sync_source
from toolkit.models import Message, SourceKind
from toolkit.refs import parse_ref
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2024, 3, 1, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SQLiteStore(tmp_path / "s.sqlite3")
    yield s
    s.close()


def _offset_source(store: SQLiteStore) -> None:
    source = store.upsert_source(
        title="West", kind=SourceKind.CHAT, internal_id=77, timezone="-05:00"
    )
    store.upsert_messages(
        [Message(source.id, i, T0 + timedelta(minutes=i), f"note {i}") for i in range(1, 4)]
    )


@pytest.mark.parametrize(
    ("start", "end", "field"),
    [
        (datetime(1, 1, 1, tzinfo=UTC), T0 + timedelta(days=1), "started_at"),
        (T0, datetime(9999, 12, 31, 23, 59, tzinfo=UTC), None),  # at -05:00: inside
    ],
)
def test_a_period_the_sources_zone_cannot_show_is_invalid(
    workspace: Workspace, start: datetime, end: datetime, field: str | None
) -> None:
    _offset_source(workspace.assembly.store)  # type: ignore[arg-type]
    request = SummaryRequest(source_ref="c/77", started_at=start, ended_at=end, language="en")
    if field is None:
        assert workspace.summarize(request).engine
        return
    with pytest.raises(InvalidRequest) as caught:
        workspace.summarize(request)
    assert caught.value.field == field
    assert str(caught.value) == (
        "started_at 0001-01-01T00:00:00Z is out of range in the source's time zone -05:00 "
        "(years 1 to 9999); give a later start or an earlier end"
    )


def test_a_key_id_past_64_bits_is_not_found(store: SQLiteStore) -> None:
    with pytest.raises(ApiKeyNotFound, match="no API key '99999999999999999999999'"):
        revoke_api_key(store, "99999999999999999999999")
    with pytest.raises(InvalidRequest, match="neither a key id"):
        revoke_api_key(store, "²")  # a digit to str.isdigit, no number to int()


def test_impossible_counts_from_a_sync_are_stored_as_unknown_and_noted(
    store: SQLiteStore,
) -> None:
    def post(msg_id: int, **counts: int) -> Any:
        return text_message(NEWS, msg_id, f"post {msg_id}", sender=None, **counts)

    fake = FakeTelegram(
        entities=[NEWS],
        histories={
            NEWS.id: [
                post(1, views=-5, forwards=2),
                post(2, views=10, forwards=-1),
                post(3, views=2**70, forwards=0),
                post(4, views=7, forwards=1),
            ]
        },
    )
    report = asyncio.run(
        sync_source(
            store,
            TelethonMessengerClient(fake),
            parse_ref("@DailyNews"),
            batch_size=2,
            flood_sleep_threshold=60.0,
        )
    )
    (stats,) = store.list_sources()
    stored = {
        m.messenger_message_id: (m.views, m.forwards) for m in store.iter_messages(stats.source.id)
    }
    assert stored == {1: (None, 2), 2: (10, None), 3: (None, 0), 4: (7, 1)}
    assert report.notes == (
        "3 messages of @dailynews came with negative or impossible view or forward counts: "
        "stored as unknown",
    )


def test_a_named_pipe_called_zip_is_refused_at_once(store: SQLiteStore, tmp_path: Path) -> None:
    pipe = tmp_path / "x.zip"
    os.mkfifo(pipe)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            import_export(store, pipe)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # unblock it: a writer opens the pipe
        with open(pipe, "wb"):
            pass
        pytest.fail("the import waited on the named pipe")
    (error,) = outcome
    assert isinstance(error, InvalidRequest)
    assert "it is a named pipe, not a file" in str(error)


def test_a_lone_surrogate_request_gets_an_error_answer() -> None:
    line = (
        '{"jsonrpc":"2.0","id":7,"method":"tools/call",'
        '"params":{"name":"x","arguments":{"q":"\\udcff"}}}'
    )
    answer = surrogate_error(line)
    assert answer is not None
    sent = json.loads(answer.message.model_dump_json(by_alias=True, exclude_unset=True))
    assert sent["id"] == 7
    assert sent["error"]["code"] == -32602
    assert "lone surrogate ('\\udcff')" in sent["error"]["message"]
    # a valid pair, plain text and a notification go to the SDK as they are
    assert (
        surrogate_error('{"jsonrpc":"2.0","id":8,"method":"m","params":{"q":"\\ud83d\\ude00"}}')
        is None
    )
    assert surrogate_error('{"jsonrpc":"2.0","id":9,"method":"m"}') is None
    assert surrogate_error('{"jsonrpc":"2.0","method":"n","params":{"q":"\\udcff"}}') is None


@pytest.mark.slow
def test_mlens_mcp_answers_a_lone_surrogate_and_goes_on(tmp_path: Path) -> None:
    import subprocess

    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines = [json.dumps(r) for r in requests]
    lines.append(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_topics","arguments":{"source_ref":"\\udcff"}}}'
    )
    lines.append(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
    # A client keeps stdin open until it has its answers: closed at once, the SDK may end
    # the session before a request still in flight is answered.
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MLENS_DATA_DIR": str(tmp_path / "d")},
    )
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None
    got: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for answered in stdout:
            got.put(answered)

    threading.Thread(target=pump, daemon=True).start()
    answers: dict[int, Any] = {}
    try:
        stdin.write("\n".join(lines) + "\n")
        stdin.flush()
        while len(answers) < 3:
            answer = json.loads(got.get(timeout=120))
            answers[answer["id"]] = answer
        stdin.close()
        proc.wait(timeout=60)
    except queue.Empty:
        pass  # the assertion below names what is missing
    finally:
        proc.kill()
    assert set(answers) == {1, 2, 3}, proc.stderr.read() if proc.stderr else ""
    assert answers[2]["error"]["code"] == -32602
    assert "tools" in answers[3]["result"]
