"""Schedules and alerts travel with ``copy_store`` (SQLite to PostgreSQL and back) and
with a backup and its restore: their runs, posts, results, ``covered_until`` and
watermarks mapped to the target's source ids; a second copy doubles nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from delivery_rows import daily_feed_schedule, email_alert

from toolkit.models import Message, SourceKind
from toolkit.store import SQLiteStore
from toolkit.store.alert_rows import NewAlert, NewPost
from toolkit.store.backup import backup_store, restore_store
from toolkit.store.copy import copy_store
from toolkit.store.postgres import PostgresStore

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
Store = SQLiteStore | PostgresStore


def _fill(store: SQLiteStore) -> None:
    store.upsert_source(title="Filler", kind=SourceKind.CHAT, internal_id=1)  # ids differ
    crew = store.upsert_source(title="Crew", kind=SourceKind.CHAT, internal_id=77, handle="crew")
    store.upsert_messages(Message(crew.id, i, T0, f"post {i}") for i in range(1, 6))
    schedule = store.add_schedule(daily_feed_schedule(crew.id, "@crew", T0))
    run = store.claim_period(
        schedule.id,
        covered_until=None,
        start=T0,
        end=T0 + timedelta(days=1),
        periods=1,
        owner="w",
        lease_until=T0,
        now=T0,
    )
    assert run is not None
    store.update_run(run.id, owner="w", lease_until=T0, status="done", digest='{"summary": "d"}')
    store.set_result(run.id, 0, state="sent", attempts=1, detail="in the feed", now=T0)
    alert = store.add_alert(
        email_alert(
            "boat", None, min_score=0.25, max_per_hour=3, created_at=T0, watermarks={crew.id: 2}
        )
    )
    posts = store.claim_alert(
        alert.id,
        version=0,
        watermarks={crew.id: 5},
        held=2,
        held_since=T0,
        posts=[
            NewPost(source_id=crew.id, message_id=4, body='{"match": 4}'),
            NewPost(source_id=None, message_id=None, body='{"held": 1}'),
        ],
        owner="w",
        lease_until=T0,
        now=T0,
    )
    assert posts is not None
    store.post_ledger().set_result(
        posts[0].id, 0, state="sent", attempts=1, detail="mailed", now=T0
    )


def _picture(store: Store) -> dict[str, Any]:
    keys = {s.source.id: s.source.key for s in store.list_sources()}
    schedules = []
    for s in store.list_schedules():
        runs = store.runs(s.id)
        results = [(r.destination, r.state, r.detail) for r in store.results([r.id for r in runs])]
        schedules.append(
            (
                keys[s.source_id],
                s.at_minute,
                s.destinations,
                s.covered_until,
                [(r.period_end, r.status, r.digest) for r in runs],
                results,
            )
        )
    alerts = []
    for a in store.list_alerts():
        posts = store.recent_posts(a.id)
        results = [
            (r.destination, r.state) for r in store.post_ledger().results([p.id for p in posts])
        ]
        alerts.append(
            (
                a.query,
                a.min_score,
                {keys[k]: v for k, v in a.watermarks.items()},
                a.held,
                a.held_since,
                sorted((p.body, keys.get(p.source_id or 0), p.message_id, p.status) for p in posts),
                results,
            )
        )
    return {"schedules": schedules, "alerts": alerts}


def test_schedules_and_alerts_copy_to_postgres_and_back_once(pg_url: str, tmp_path: Path) -> None:
    lite, pg = SQLiteStore(tmp_path / "a.sqlite3"), PostgresStore(pg_url, pool_size=2)
    back = SQLiteStore(tmp_path / "b.sqlite3")
    try:
        _fill(lite)
        first = copy_store(lite, pg)
        assert (first.schedules, first.alerts) == (1, 1)
        picture = _picture(lite)
        assert picture["schedules"][0][3] == T0 + timedelta(days=1)
        assert picture["alerts"][0][2] == {"@crew": 5}
        assert _picture(pg) == picture
        again = copy_store(lite, pg)
        assert (again.schedules, again.alerts) == (0, 0)
        assert _picture(pg) == picture  # nothing doubled
        copy_store(pg, back)
        assert _picture(back) == picture
    finally:
        for store in (lite, pg, back):
            store.close()


def test_a_restore_carries_schedules_and_alerts(tmp_path: Path) -> None:
    origin = SQLiteStore(tmp_path / "origin.sqlite3")
    _fill(origin)
    picture = _picture(origin)
    backup_store(origin, tmp_path / "b.sqlite3")
    origin.close()
    held = SQLiteStore(tmp_path / "held.sqlite3")
    try:
        _fill(held)
        held.add_alert(
            NewAlert(
                query="other",
                source_refs=json.dumps(["@crew"]),
                min_score=0.5,
                max_per_hour=1,
                destinations="[]",
                created_at=T0,
                watermarks={},
            )
        )
        restore_store(held, tmp_path / "b.sqlite3", replace=True)
        assert _picture(held) == picture  # the store's own alert went with --force
    finally:
        held.close()
