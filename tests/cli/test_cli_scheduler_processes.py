"""Real ``mlens scheduler`` processes on one store (an SQLite file; a PostgreSQL
database), delivering to a fake Bot API and a signed-webhook receiver on 127.0.0.1:
exactly one delivery per period per destination while two race, after one is killed
between runs and another started, and after one is killed mid-send (the Bot API has the
message, the store has no outcome: not sent again, shown ``uncertain``).

The processes read their clock from a file (``tests/clocked_scheduler.py``), so days
pass in a second; every wait is bounded and every process is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path

import pytest
from delivery_servers import Received, http_server
from serving import serve_env
from store_backends import Store

from toolkit.config import DeliverySettings
from toolkit.delivery.model import Schedule, ScheduleSpec, parse_destinations
from toolkit.delivery.periods import Rule
from toolkit.delivery.status import new_schedule, schedule_status
from toolkit.delivery.webhook import verify
from toolkit.models import SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore

pytestmark = pytest.mark.slow

LAUNCHER = Path(__file__).resolve().parents[1] / "clocked_scheduler.py"
SECRET = "receiver-shared-secret"
CREATED = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def due(day: int) -> datetime:
    """Half a minute after the ``day``-th 08:00 UTC digest is due."""
    return datetime(2024, 3, 1 + day, 8, 0, 30, tzinfo=UTC)


class Scene:
    """The store, the clock file and the scheduler processes of one test."""

    def __init__(self, folder: Path, store: Store, env: dict[str, str]) -> None:
        self.folder, self.store, self.env = folder, store, env
        self.clock_file = folder / "clock"
        self.procs: list[subprocess.Popen[bytes]] = []

    def set_clock(self, when: datetime) -> None:
        fresh = self.clock_file.with_suffix(".new")
        fresh.write_text(when.isoformat())
        os.replace(fresh, self.clock_file)  # a reader sees the old time or the new

    def start(self) -> subprocess.Popen[bytes]:
        log = (self.folder / f"scheduler-{len(self.procs)}.log").open("ab")
        proc = subprocess.Popen(
            [sys.executable, str(LAUNCHER), str(self.clock_file), "scheduler"],
            cwd=self.folder,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self.procs.append(proc)
        return proc

    def up(self) -> bool:
        """Whether every live process has started passing (it says so first)."""
        return all(
            "Running due schedules" in (self.folder / f"scheduler-{i}.log").read_text()
            for i, proc in enumerate(self.procs)
            if proc.poll() is None
        )

    def kill(self, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        next(p for p in self.procs if p.pid == pid).wait(10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(10)

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-1500:] for p in self.folder.glob("*.log"))


def wait_for(test: Callable[[], bool], scene: Scene, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:g} s\n{scene.logs()}")
        if any(p.poll() not in (None, -signal.SIGKILL) for p in scene.procs):
            pytest.fail(f"a scheduler exited while waiting for {what}\n{scene.logs()}")
        time.sleep(0.05)


def settle() -> None:
    """Long enough for every live process to pass several times (each polls every 0.1 s):
    a second delivery of the period would show by then."""
    time.sleep(0.6)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, str]]:
    """The store and the setting that names it to a process."""
    if request.param == "sqlite":
        path = tmp_path / "store.sqlite3"
        store: Store = SQLiteStore(path)
        setting = f"MLENS_DATABASE={path}"
    else:
        url = request.getfixturevalue("pg_url")
        store = PostgresStore(url, pool_size=2)
        setting = f"MLENS_DATABASE_URL={url}"
    yield store, setting
    store.close()


def _schedule(store: Store, bot: str, hook: str) -> Schedule:
    source = store.upsert_source(
        title="Team", kind=SourceKind.CHAT, handle="team_chat", timezone="UTC"
    )
    destinations = [
        {"kind": "telegram", "chat_id": "-100777", "bot_token": "4242:fake"},
        {"kind": "webhook", "url": hook + "/in", "secret": SECRET},
    ]
    spec = ScheduleSpec(
        source_ref="@team_chat",
        rule=Rule("daily", clock_time(8, 0)),
        destinations=parse_destinations(destinations),
    )
    return Schedule.of(store.add_schedule(new_schedule(spec, source, CREATED)))


def _owner_pid(store: Store, schedule: Schedule) -> int:
    run = store.runs(schedule.id, limit=1)[0]
    return int(run.owner.split(":")[1])  # host:pid:tail


def test_scheduler_processes_deliver_each_period_once_through_restarts_and_a_kill_mid_send(
    backend: tuple[Store, str], tmp_path: Path
) -> None:
    store, setting = backend
    bot, hook = Received(), Received()
    with http_server(bot) as bot_url, http_server(hook) as hook_url:
        schedule = _schedule(store, bot_url, hook_url)
        name, value = setting.split("=", 1)
        env = serve_env(
            **{name: value},
            MLENS_DATA_DIR=str(tmp_path / "data"),
            MLENS_TELEGRAM_API_URL=bot_url,
            MLENS_DELIVERY_POLL_SECONDS="0.1",
        )
        env["PYTHONPATH"] += os.pathsep + str(LAUNCHER.parent)
        scene = Scene(tmp_path, store, env)
        try:

            def counts(n: int) -> Callable[[], bool]:
                return lambda: len(bot.requests) >= n and len(hook.requests) >= n

            # Two processes, both passing, race for the first period, then the second.
            scene.set_clock(CREATED)
            first = scene.start()
            scene.start()
            wait_for(scene.up, scene, "two schedulers passing", timeout=60)
            scene.set_clock(due(1))
            wait_for(counts(1), scene, "the first digest")
            settle()
            scene.set_clock(due(2))
            wait_for(counts(2), scene, "the second digest")
            settle()
            assert (len(bot.requests), len(hook.requests)) == (2, 2)
            # One is killed between runs and another started.
            scene.kill(first.pid)
            scene.start()
            wait_for(scene.up, scene, "the restarted scheduler passing", timeout=60)
            scene.set_clock(due(3))
            wait_for(counts(3), scene, "the third digest after a restart")
            settle()
            assert (len(bot.requests), len(hook.requests)) == (3, 3)
            # One is killed while the Bot API holds its message: it arrived, and the
            # store never heard so.
            bot.hold, bot.arrived = threading.Event(), threading.Event()
            scene.set_clock(due(4))
            wait_for(bot.arrived.is_set, scene, "the fourth digest at the Bot API")
            scene.kill(_owner_pid(store, schedule))
            bot.hold.set()
            scene.start()
            wait_for(scene.up, scene, "the scheduler started after the kill", timeout=60)
            lease = DeliverySettings().lease_seconds
            scene.set_clock(due(4) + timedelta(seconds=lease + 1))  # the dead one's lease ends
            wait_for(counts(4), scene, "the fourth digest's webhook after the kill")
            settle()
        finally:
            scene.stop_all()
    assert len(bot.requests) == 4  # the held message is not sent again
    texts = [json.loads(body)["text"] for _, _, body in bot.requests]
    assert len(set(texts)) == 4
    deliveries = [headers["X-Mlens-Delivery"] for _, headers, _ in hook.requests]
    assert len(set(deliveries)) == 4
    ends = [json.loads(body)["period"]["end"] for _, _, body in hook.requests]
    assert ends == [f"2024-03-0{d + 1}T08:00:00Z" for d in range(1, 5)]
    for _, headers, body in hook.requests:
        stamp = headers["X-Mlens-Timestamp"]
        assert verify(SECRET, stamp, body, headers["X-Mlens-Signature"])
    states = {d.label.split()[0]: d.state for d in schedule_status(store, schedule).destinations}
    assert states == {"telegram": "uncertain", "webhook": "sent"}
