"""The ``mlens`` commands on PostgreSQL (``MLENS_DATABASE_URL``): no SQLite file anywhere,
and ``copy-store`` moves everything to SQLite and back, idempotently."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from cli import app, state
from toolkit.refs import parse_ref
from toolkit.store import SQLiteStore
from toolkit.store.postgres import PostgresStore

TEXTS = [
    "How do we deploy the service to the new cluster?",
    "Deploy it with make serve behind the proxy, two workers per machine.",
    "Lunch at noon?",
    "The rollout of the search service finished without errors.",
]


def _export(path: Path) -> Path:
    messages = [
        {
            "id": i,
            "type": "message",
            "date_unixtime": str(1_700_000_000 + 60 * i),
            "text": text,
            "from": "Ann" if i % 2 else "Bob",
            "from_id": f"user{i % 2}",
        }
        for i, text in enumerate(TEXTS, 1)
    ]
    data = {"name": "Ops", "type": "public_supergroup", "id": 4242, "messages": messages}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _sqlite_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "sqlite" in p.name)


@pytest.mark.slow
def test_cli_on_postgres_writes_no_sqlite_file_and_copies_both_ways(
    runner: CliRunner,
    cli_env: Path,
    pg_url: str,
    pg_server: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MLENS_DATABASE_URL", pg_url)
    state.reset()
    imported = runner.invoke(
        app, ["import", str(_export(cli_env / "result.json")), "--no-progress"]
    )
    assert imported.exit_code == 0, imported.output
    listed = runner.invoke(app, ["sources", "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.stdout)
    assert "Ops" in json.dumps(row, ensure_ascii=False)
    assert 4 in row.values()
    token = runner.invoke(app, ["keys", "create", "-s", "search.read", "-n", "ci"]).stdout.strip()
    hits = runner.invoke(app, ["search", "t.me/c/4242", "deploy the service", "--limit", "2"])
    assert hits.exit_code == 0, hits.output
    assert "deploy" in hits.stdout.lower()
    summary = runner.invoke(
        app, ["summarize", "t.me/c/4242", "--from", "2023-11-01", "--to", "2023-12-01"]
    )
    assert summary.exit_code == 0, summary.output
    about = runner.invoke(app, ["summarize", "t.me/c/4242", "--source"])
    assert about.exit_code == 0, about.output
    assert _sqlite_files(cli_env) == []
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone() == (4,)
        assert conn.execute("SELECT COUNT(*) FROM embeddings").fetchone() == (4,)
        assert conn.execute("SELECT prefix FROM api_keys").fetchone() == (token[:12],)

    copy = cli_env / "copy.sqlite3"
    first = runner.invoke(app, ["copy-store", "--to", str(copy)])
    assert first.exit_code == 0, first.output
    assert "4 messages new" in first.stdout
    again = runner.invoke(app, ["copy-store", "--to", str(copy)])
    assert "0 messages new, 0 updated, 4 unchanged" in again.stdout
    assert "0 API keys added" in again.stdout
    lite = SQLiteStore(copy)
    try:
        source = lite.get_source(parse_ref("t.me/c/4242"))
        assert lite.count_messages(source.id) == 4
        assert len(lite.get_vectors(source.id, [1, 2, 3, 4], lite.vector_models(source.id)[0])) == 4
        assert [k.prefix for k in lite.list_api_keys()] == [token[:12]]
    finally:
        lite.close()

    back = pg_url.rsplit("/", 1)[0] + "/copied_back"
    with psycopg.connect(pg_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute("CREATE DATABASE copied_back")
    result = runner.invoke(app, ["copy-store", "--from", str(copy), "--to", back])
    assert result.exit_code == 0, result.output
    restored = PostgresStore(back, pool_size=1)
    try:
        source = restored.get_source(parse_ref("t.me/c/4242"))
        assert [m.text for m in restored.iter_messages(source.id)] == TEXTS
    finally:
        restored.close()
