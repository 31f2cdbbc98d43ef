"""Re-import never moves a stored message's time; a ``--ref`` the export contradicts is refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from store_backends import Store, snapshot

from toolkit.errors import InvalidRequest
from toolkit.ingest import import_export
from toolkit.models import Message

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL

MOSCOW = datetime(2024, 4, 25, 12, 0)  # a wall-clock time, as older exports write `date`


def msg(mid: int, text: str, **fields: Any) -> dict[str, Any]:
    """A message with only a local ``date`` (no ``date_unixtime``), as older exports have."""
    when = (MOSCOW + timedelta(minutes=mid)).isoformat()
    base = {"id": mid, "type": "message", "date": when, "from": "Al", "from_id": "user1"}
    return base | {"text": text} | fields


def chat(messages: list[dict[str, Any]], kind: str = "private_supergroup") -> dict[str, Any]:
    return {"name": "Team", "type": kind, "id": 555, "messages": messages}


def write(path: Path, data: Any, **dump: Any) -> Path:
    path.write_text(json.dumps(data, **dump), encoding="utf-8")
    return path


def times(store: Store) -> dict[int, datetime]:
    (stats,) = store.list_sources()
    return {m.messenger_message_id: m.posted_at for m in store.iter_messages(stats.source.id)}


def test_a_full_account_export_at_another_offset_leaves_stored_times(
    store: Store, tmp_path: Path
) -> None:
    own = write(tmp_path / "own.json", chat([msg(1, "a"), msg(2, "b")]))
    import_export(store, own, timezone="Europe/Moscow")
    before = times(store)
    assert before[1] == datetime(2024, 4, 25, 9, 1, tzinfo=UTC)
    # The account's export, read on a machine at UTC+4, brings the chat again plus a new one.
    account = {"chats": {"list": [chat([msg(1, "a"), msg(2, "b"), msg(3, "c")])]}}
    report = import_export(store, write(tmp_path / "all.json", account), timezone="Asia/Dubai")
    after = times(store)
    assert {k: after[k] for k in before} == before
    assert after[3] == datetime(2024, 4, 25, 8, 3, tzinfo=UTC)  # a new message: read as given
    assert (report.total.inserted, report.total.updated, report.total.unchanged) == (1, 0, 2)
    assert "2 messages of c/555 came with another posting time" in report.line()


def test_an_edit_arriving_at_another_offset_changes_the_text_not_the_time(
    store: Store, tmp_path: Path
) -> None:
    import_export(store, write(tmp_path / "a.json", chat([msg(1, "draft")])))
    before = times(store)
    edited = msg(1, "final", edited=(MOSCOW + timedelta(hours=1)).isoformat())
    report = import_export(store, write(tmp_path / "b.json", chat([edited])), timezone="Asia/Dubai")
    assert report.total.updated == 1
    (stats,) = store.list_sources()
    (message,) = store.iter_messages(stats.source.id)
    assert (message.text, message.posted_at) == ("final", before[1])


def test_a_direct_upsert_keeps_the_stored_time_too(store: Store, tmp_path: Path) -> None:
    import_export(store, write(tmp_path / "a.json", chat([msg(1, "a")])))
    (stats,) = store.list_sources()
    (stored,) = store.iter_messages(stats.source.id)
    later = stored.posted_at + timedelta(hours=4)
    moved = Message(stats.source.id, 1, later, "a", sender_peer_id="user1", sender_name="Al")
    result = store.upsert_messages([moved])
    assert (result.unchanged, result.times_kept) == (1, 1)
    assert times(store) == {1: stored.posted_at}


@pytest.mark.parametrize("sort_keys", [False, True])  # sorted: the type follows the messages
def test_a_public_handle_for_a_private_channel_is_refused(
    store: Store, tmp_path: Path, sort_keys: bool
) -> None:
    path = write(tmp_path / "r.json", chat([msg(1, "a")], "private_channel"), sort_keys=sort_keys)
    before = snapshot(store)
    with pytest.raises(InvalidRequest, match="private channel, which has no public handle"):
        import_export(store, path, ref="@public_handle")
    assert snapshot(store) == before


def test_a_handle_of_another_stored_chat_is_refused(store: Store, tmp_path: Path) -> None:
    other = {"name": "Other", "type": "public_channel", "id": 9, "messages": [msg(1, "o")]}
    import_export(store, write(tmp_path / "o.json", other), ref="@taken")
    before = snapshot(store)
    mine = write(tmp_path / "m.json", chat([msg(1, "m")], "public_supergroup"))
    with pytest.raises(InvalidRequest, match="names another chat in the store"):
        import_export(store, mine, ref="@taken")
    assert snapshot(store) == before


def test_a_chat_stored_under_another_handle_is_refused(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", chat([msg(1, "p")], "public_supergroup"))
    import_export(store, path, ref="@first_name")
    before = snapshot(store)
    with pytest.raises(InvalidRequest, match="is stored as @first_name"):
        import_export(store, path, ref="@second_name")
    assert snapshot(store) == before
    import_export(store, path, ref="@FIRST_name")  # the same handle, any case, is fine


def test_a_forum_export_imported_again_is_all_unchanged(store: Store, tmp_path: Path) -> None:
    created = {"id": 1, "type": "service", "date": MOSCOW.isoformat(), "actor": "Al",
               "actor_id": "user1", "action": "topic_created", "title": "Plans"}  # fmt: skip
    messages = [created, msg(2, "in the topic", reply_to_message_id=1), msg(3, "in General")]
    path = write(tmp_path / "forum.json", chat(messages))
    import_export(store, path)
    before = snapshot(store)
    again = import_export(store, path).total
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 3)
    assert snapshot(store) == before
