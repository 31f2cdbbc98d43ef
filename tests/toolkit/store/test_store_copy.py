"""``copy_store``: everything moves between SQLite and PostgreSQL, and a second run is a no-op."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from toolkit.models import Message, MessageFilter, NewApiKey, SourceKind, SourceRef, UpsertResult
from toolkit.store import SQLiteStore
from toolkit.store.copy import copy_store
from toolkit.store.postgres import PostgresStore
from toolkit.summarize.cache import cache_key
from toolkit.summarize.context import SummaryContext

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
CTX = SummaryContext("period", SourceKind.CHAT, "Forum", "en", T0, T0 + timedelta(days=1))


def _fill(store: SQLiteStore) -> None:
    store.upsert_source(title="Filler", kind=SourceKind.CHAT, internal_id=1)  # ids differ
    forum = store.upsert_source(
        title="Forum",
        kind=SourceKind.CHAT,
        internal_id=77,
        handle="forum",
        chat_type="public_supergroup",
    )
    store.upsert_messages(
        Message(forum.id, i, T0 + timedelta(minutes=i), f"post {i}", topic_id=5 if i % 2 else None)
        for i in range(1, 8)
    )
    store.upsert_topics(forum.id, [(5, "Releases")])
    rng = np.random.default_rng(1)
    store.put_vectors(
        forum.id, "m1", ((i, rng.standard_normal(4).astype(np.float32)) for i in (1, 2))
    )
    store.put_vectors(forum.id, "m2", [(3, np.ones(3, dtype=np.float32))])
    store.set_watermark(forum.id, 7, T0 + timedelta(days=1))
    live = store.add_api_key(
        NewApiKey(
            name="live", prefix="mlk_live", key_hash="a" * 64, scopes=["search.read"], created_at=T0
        )
    )
    store.touch_api_key(live.id, T0 + timedelta(hours=3))
    store.add_api_key(
        NewApiKey(name="gone", prefix="mlk_gone", key_hash="b" * 64, scopes=[], created_at=T0)
    )
    store.revoke_api_key("mlk_gone", at=T0 + timedelta(hours=1))
    messages = store.messages_in_period(
        forum.id, MessageFilter(since=CTX.started_at, before=CTX.ended_at)
    )
    store.cache_put(cache_key(forum, CTX, "extractive-test", messages), '{"summary": "posts"}')
    store.cache_put("other", "value")


def _picture(store: SQLiteStore | PostgresStore) -> dict[str, object]:
    out: dict[str, object] = {}
    for stats in store.list_sources():
        sid = stats.source.id
        vectors = {
            model: {k: v.tolist() for k, v in store.get_vectors(sid, range(1, 8), model).items()}
            for model in store.vector_models(sid)
        }
        messages = [(m.messenger_message_id, m.text, m.topic_id) for m in store.iter_messages(sid)]
        key = stats.source.key
        out[key] = (stats.source.title, stats.source.chat_type, stats.topics, messages, vectors)
        out[key + " sync"] = (stats.last_synced_message_id, stats.last_synced_at)
    out["keys"] = [
        (k, store.api_key_by_prefix(k.prefix)[1])  # type: ignore[index]
        for k in (replace(k, id=0) for k in store.list_api_keys())
    ]
    out["cache"] = list(store.iter_cache(batch_size=1))
    return out


def _cached_summary(store: SQLiteStore | PostgresStore) -> str | None:
    """The cached summary of ``CTX`` as this store's own ids find it."""
    forum = store.get_source(SourceRef(raw="@forum", handle="forum"))
    messages = store.messages_in_period(
        forum.id, MessageFilter(since=CTX.started_at, before=CTX.ended_at)
    )
    return store.cache_get(cache_key(forum, CTX, "extractive-test", messages))


def test_copy_to_postgres_and_back_is_whole_and_idempotent(pg_url: str, tmp_path: Path) -> None:
    lite, pg = SQLiteStore(tmp_path / "a.sqlite3"), PostgresStore(pg_url, pool_size=2)
    back = SQLiteStore(tmp_path / "b.sqlite3")
    try:
        _fill(lite)
        first = copy_store(lite, pg, batch_size=3)
        assert (first.sources, first.messages.inserted, first.vectors) == (2, 7, 3)
        assert (first.keys_added, first.keys_revoked, first.cache_written) == (2, 1, 2)
        assert _picture(pg) == _picture(lite)
        assert _cached_summary(pg) == '{"summary": "posts"}'
        again = copy_store(lite, pg, batch_size=3)
        assert again.messages == UpsertResult(0, 0, 7)
        assert (again.keys_added, again.keys_revoked, again.cache_written) == (0, 0, 0)
        assert _picture(pg) == _picture(lite)
        copy_store(pg, back)
        assert _picture(back) == _picture(lite)
        assert _cached_summary(back) == '{"summary": "posts"}'
    finally:
        for store in (lite, pg, back):
            store.close()


def test_copy_keeps_what_the_target_knows_later(pg_url: str, tmp_path: Path) -> None:
    lite, pg = SQLiteStore(tmp_path / "a.sqlite3"), PostgresStore(pg_url, pool_size=2)
    try:
        _fill(lite)
        copy_store(lite, pg)
        live = pg.api_key_by_prefix("mlk_live")
        assert live is not None
        pg.touch_api_key(live[0].id, T0 + timedelta(days=2))  # used again after the move
        pg.cache_put("other", "recomputed")  # newer than the copied entry
        pg.revoke_api_key("mlk_gone", at=T0 + timedelta(days=3))  # already revoked: kept
        report = copy_store(lite, pg)
        assert (report.keys_revoked, report.cache_written) == (0, 0)
        assert pg.cache_get("other") == "recomputed"
        kept = {k.prefix: k for k in pg.list_api_keys()}
        assert kept["mlk_live"].last_used_at == T0 + timedelta(days=2)
        assert kept["mlk_gone"].revoked_at == T0 + timedelta(hours=1)
    finally:
        lite.close()
        pg.close()


def test_copy_cleans_what_an_older_sqlite_store_holds(pg_url: str, tmp_path: Path) -> None:
    # Before imports cleaned text, SQLite took NUL and escapes that PostgreSQL refuses.
    lite, pg = SQLiteStore(tmp_path / "old.sqlite3"), PostgresStore(pg_url, pool_size=2)
    try:
        old = lite.upsert_source(
            title="Old\x00 chat", kind=SourceKind.CHAT, internal_id=5, chat_type="private_group"
        )
        lite.upsert_messages(
            [
                Message(old.id, 1, T0, "nul\x00 esc\x1b[1m", sender_name="A\x00"),
                Message(old.id, 2, T0 + timedelta(minutes=1), "fine"),
            ]
        )
        lite.upsert_topics(old.id, [(1, "Gen\x00eral")])
        first = copy_store(lite, pg)
        assert first.messages == UpsertResult(2, 0, 0)
        (copied,) = pg.list_sources()
        assert (copied.source.title, [t.title for t in copied.topics]) == ("Old chat", ["General"])
        texts = [(m.text, m.sender_name) for m in pg.iter_messages(copied.source.id)]
        assert texts == [("nul esc[1m", "A"), ("fine", None)]
        assert copy_store(lite, pg).messages == UpsertResult(0, 0, 2)  # the cleaned text is kept
    finally:
        lite.close()
        pg.close()
