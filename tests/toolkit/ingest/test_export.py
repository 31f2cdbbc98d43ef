"""Telegram Desktop JSON export import: shapes, field variants, failures, CLI."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from toolkit.errors import ImportFormatError, InvalidRequest, InvalidSourceRef
from toolkit.ingest import import_export
from toolkit.models import Message, MessageFilter, SourceKind
from toolkit.refs import message_link, parse_ref
from toolkit.store import SQLiteStore

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL

T0 = 1_714_000_000  # 2024-04-24T23:06:40Z


def msg(mid: int, text: Any = "", **fields: Any) -> dict[str, Any]:
    """An exported message as Telegram Desktop writes it (date_unixtime as a string)."""
    when = T0 + 60 * mid
    local = datetime.fromtimestamp(when + 3 * 3600, tz=UTC).replace(tzinfo=None).isoformat()
    out: dict[str, Any] = {"id": mid, "type": "message", "date": local, "date_unixtime": str(when)}
    out |= {"from": "Alice", "from_id": "user1"} | fields
    out["text"] = text
    return out


def chat(messages: list[dict[str, Any]], *, chat_id: int = 777, kind: str = "private_supergroup",
         name: str | None = "Test chat") -> dict[str, Any]:  # fmt: skip
    return {"name": name, "type": kind, "id": chat_id, "messages": messages}


def write(path: Path, data: Any, **dump: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, **dump), encoding="utf-8")
    return path


def dump(db: Path) -> list[str]:
    """Every committed row of the store, as SQL (read through a second connection)."""
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def only(store: SQLiteStore, path: Path, **kw: Any) -> list[Message]:
    report = import_export(store, path, **kw)
    assert len(report.sources) == 1
    return list(store.iter_messages(report.sources[0].source.id))


# Shapes ---------------------------------------------------------------------------------


def test_single_chat_export_creates_a_private_source(store: SQLiteStore, tmp_path: Path) -> None:
    path = write(tmp_path / "result.json", chat([msg(1, "hello"), msg(2, "world")]))
    report = import_export(store, path)
    (item,) = report.sources
    assert (item.source.title, item.source.kind, item.source.internal_id) == (
        "Test chat",
        SourceKind.CHAT,
        777,
    )
    assert item.source.handle is None
    assert item.source.key == "c/777"
    assert report.total.inserted == 2
    assert message_link(item.source, 2) == "https://t.me/c/777/2"
    assert store.get_source(parse_ref("https://t.me/c/777/2")).id == item.source.id


@pytest.mark.parametrize(
    ("chat_type", "kind"),
    [
        ("personal_chat", SourceKind.CHAT),
        ("private_group", SourceKind.CHAT),
        ("private_supergroup", SourceKind.CHAT),
        ("public_supergroup", SourceKind.CHAT),
        ("public_channel", SourceKind.CHANNEL),
        ("private_channel", SourceKind.CHANNEL),
    ],
)
def test_export_type_gives_the_source_kind(
    store: SQLiteStore, tmp_path: Path, chat_type: str, kind: SourceKind
) -> None:
    path = write(tmp_path / "r.json", chat([msg(1, "x")], kind=chat_type))
    assert import_export(store, path).sources[0].source.kind is kind


def test_full_account_export_imports_every_chat(store: SQLiteStore, tmp_path: Path) -> None:
    account = {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": 1, "first_name": "Me"},
        "frequent_contacts": {"about": "", "list": [{"id": 5, "type": "user", "name": "Bob"}]},
        "chats": {"about": "", "list": [
            chat([msg(1, "in group"), msg(2, "more")], chat_id=11, name="Group"),
            chat([msg(1, "post")], chat_id=12, kind="public_channel", name="News"),
        ]},
        "left_chats": {"about": "", "list": [chat([msg(7, "old")], chat_id=13, name="Left")]},
    }  # fmt: skip
    report = import_export(store, write(tmp_path / "result.json", account))
    assert [(s.source.internal_id, s.source.title, s.result.inserted) for s in report.sources] == [
        (11, "Group", 2), (12, "News", 1), (13, "Left", 1),
    ]  # fmt: skip
    assert report.sources[1].source.kind is SourceKind.CHANNEL
    assert {s.source.internal_id for s in store.list_sources()} == {11, 12, 13}
    assert report.total.inserted == 4


def test_keys_in_any_order_are_read(store: SQLiteStore, tmp_path: Path) -> None:
    # jq -S sorts keys: "id" < "messages" < "name" < "type" puts title and type last.
    path = write(tmp_path / "r.json", chat([msg(1, "a")], kind="public_channel"), sort_keys=True)
    (item,) = import_export(store, path).sources
    stored = store.get_source_by_id(item.source.id)
    assert (stored.title, stored.kind) == ("Test chat", SourceKind.CHANNEL)


def test_saved_messages_without_name_get_a_title(store: SQLiteStore, tmp_path: Path) -> None:
    data = {"type": "saved_messages", "id": 99, "messages": [msg(1, "note")]}
    assert import_export(store, write(tmp_path / "r.json", data)).sources[0].source.title == (
        "Saved Messages"
    )


# Field variants -------------------------------------------------------------------------


def test_text_as_a_list_of_strings_and_entities(store: SQLiteStore, tmp_path: Path) -> None:
    parts = [
        "Read ", {"type": "text_link", "text": "the docs", "href": "https://ex.org/docs"},
        " or ", {"type": "link", "text": "https://ex.org"}, ", ask ",
        {"type": "mention", "text": "@bob"}, " ", {"type": "bold", "text": "now"},
        " ", {"type": "text_link", "text": "https://ex.org/a", "href": "https://ex.org/a"},
    ]  # fmt: skip
    (m,) = only(store, write(tmp_path / "r.json", chat([msg(1, parts)])))
    assert m.text == (
        "Read the docs (https://ex.org/docs) or https://ex.org, ask @bob now https://ex.org/a"
    )


def test_date_unixtime_wins_over_local_date(store: SQLiteStore, tmp_path: Path) -> None:
    first = msg(1, "a") | {"date": "1999-01-01T00:00:00"}
    only_local = {k: v for k, v in msg(2, "b").items() if k != "date_unixtime"}
    only_local["date"] = "2024-05-01T12:30:00"
    messages = only(store, write(tmp_path / "r.json", chat([first, only_local])))
    assert messages[0].posted_at == datetime.fromtimestamp(T0 + 60, tz=UTC)
    # With no offset in the file, the local date is taken as UTC (naive means UTC).
    assert messages[1].posted_at == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def test_edited_unixtime(store: SQLiteStore, tmp_path: Path) -> None:
    edited = msg(1, "a", edited="2024-04-25T03:00:00", edited_unixtime=str(T0 + 500))
    (m,) = only(store, write(tmp_path / "r.json", chat([edited])))
    assert m.edited_at == datetime.fromtimestamp(T0 + 500, tz=UTC)


def test_senders_replies_and_forwards(store: SQLiteStore, tmp_path: Path) -> None:
    messages = [
        msg(1, "from a user"),
        msg(2, "as the channel", **{"from": "News", "from_id": "channel42"}),
        msg(3, "reply", reply_to_message_id=1),
        msg(4, "reply elsewhere", reply_to_message_id=9, reply_to_peer_id="channel555"),
        msg(5, "fwd", forwarded_from="Some Channel"),
        msg(6, "deleted account", **{"from": None, "from_id": "user9"}),
        msg(7, "hidden forward", forwarded_from=None),
    ]
    got = {
        m.messenger_message_id: m for m in only(store, write(tmp_path / "r.json", chat(messages)))
    }
    assert (got[1].sender_peer_id, got[1].sender_name) == ("user1", "Alice")
    assert (got[2].sender_peer_id, got[2].sender_name) == ("channel42", "News")
    assert got[3].reply_to == 1
    assert got[1].reply_to is None
    assert got[4].reply_to is None  # it answers a message of another chat
    assert got[5].forwarded_from == "Some Channel"
    assert got[1].forwarded_from is None
    assert got[6].sender_name is None
    assert got[6].sender_peer_id == "user9"
    assert got[7].forwarded_from  # forwarded, though the sender hid their name


def test_media_messages_keep_caption_and_mark_media(store: SQLiteStore, tmp_path: Path) -> None:
    skipped = "(File not included. Change data exporting settings to download.)"
    messages = [
        msg(1, "", photo=skipped, width=1280, height=960),
        msg(2, "look at this", photo="photos/photo_2.jpg", width=10, height=10),
        msg(3, "", file=skipped, media_type="sticker", sticker_emoji="👍"),
        msg(4, "clip", file="video.mp4", media_type="video_file", mime_type="video/mp4"),
        msg(5, "", file="report.pdf", mime_type="application/pdf"),
        msg(6, "", poll={"question": "Lunch?", "answers": [{"text": "yes"}, {"text": "no"}]}),
        msg(7, "plain"),
    ]
    got = {
        m.messenger_message_id: m for m in only(store, write(tmp_path / "r.json", chat(messages)))
    }
    assert [(got[i].media, got[i].text) for i in range(1, 8)] == [
        ("photo", ""), ("photo", "look at this"), ("sticker", "[sticker] 👍"),
        ("video_file", "clip"), ("file", "[file] report.pdf"),
        ("poll", "Lunch? — yes / no"), (None, "plain"),
    ]  # fmt: skip
    source_id = got[1].source_id
    # A photo without a caption says nothing to search; the sticker and the file do.
    recent = store.recent_messages(source_id, 10, MessageFilter(with_text_only=True))
    assert {m.messenger_message_id for m in recent} == {2, 3, 4, 5, 6, 7}


def test_service_messages_are_kept_as_such(store: SQLiteStore, tmp_path: Path) -> None:
    def service(mid: int, action: str, **fields: Any) -> dict[str, Any]:
        base = msg(mid, "", type="service")
        for key in ("from", "from_id"):
            base.pop(key)
        return base | {"actor": "Alice", "actor_id": "user1", "action": action} | fields

    messages = [
        service(1, "create_group", title="Club", members=[]),
        service(2, "invite_members", members=["Alice"]),
        service(3, "invite_members", members=["Bob", "Carol"]),
        service(4, "join_group_by_link", inviter="Alice"),
        msg(5, "hi all"),
        service(6, "pin_message", message_id=5),
        service(7, "edit_group_title", title="Club 2"),
        service(8, "remove_members", members=["Alice"]),
        service(9, "some_future_action"),
        {"id": 10, "type": "unsupported"},
    ]
    report = import_export(store, write(tmp_path / "r.json", chat(messages)))
    (item,) = report.sources
    assert (item.result.inserted, item.skipped) == (9, 1)
    sid = item.source.id
    got = store.messages_in_period(sid, MessageFilter(include_service=True))
    assert [m.text for m in got if m.is_service] == [
        "Alice created the group «Club»", "Alice joined the group", "Alice added Bob and Carol",
        "Alice joined the group via an invite link", "Alice pinned message 5",
        "Alice changed the title to «Club 2»", "Alice left the group",
        "Alice: some future action",
    ]  # fmt: skip
    assert all(m.sender_peer_id == "user1" for m in got)
    # Kept out of counts, search windows and summaries.
    assert store.count_messages(sid) == 1
    assert store.source_stats(sid).message_count == 1
    assert [m.messenger_message_id for m in store.recent_messages(sid, 50)] == [5]


# Idempotency and refs -------------------------------------------------------------------


def test_reimport_changes_nothing(store: SQLiteStore, db: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", chat([msg(i, f"m{i}") for i in range(1, 40)]))
    import_export(store, path, batch_size=7)
    before = dump(db)
    again = import_export(store, path, batch_size=7)
    assert (again.total.inserted, again.total.updated, again.total.unchanged) == (0, 0, 39)
    assert dump(db) == before


def test_a_newer_export_with_an_edit_updates_the_text(store: SQLiteStore, tmp_path: Path) -> None:
    import_export(store, write(tmp_path / "a.json", chat([msg(1, "typo"), msg(2, "b")])))
    fixed = msg(1, "fixed", edited_unixtime=str(T0 + 999))
    report = import_export(
        store, write(tmp_path / "b.json", chat([fixed, msg(2, "b"), msg(3, "c")]))
    )
    assert (report.total.inserted, report.total.updated, report.total.unchanged) == (1, 1, 1)
    assert store.get_messages(report.sources[0].source.id, [1])[0].text == "fixed"


def test_ref_names_a_public_source_whose_links_use_the_handle(
    store: SQLiteStore, tmp_path: Path
) -> None:
    path = write(tmp_path / "r.json", chat([msg(1, "x")], kind="public_channel"))
    (item,) = import_export(store, path, ref="https://t.me/Demo_Channel").sources
    assert (item.source.handle, item.source.key) == ("demo_channel", "@demo_channel")
    assert message_link(item.source, 1) == "https://t.me/demo_channel/1"
    assert store.get_source(parse_ref("@DEMO_channel")).id == item.source.id


def test_a_public_source_gains_its_handle_on_reimport(store: SQLiteStore, tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", chat([msg(1, "x")], kind="public_supergroup"))
    first = import_export(store, path).sources[0].source
    second = import_export(store, path, ref="@named_later").sources[0]
    assert second.source.id == first.id
    assert second.source.handle == "named_later"
    assert second.result.unchanged == 1


@pytest.mark.parametrize("ref", ["t.me/c/777", "https://t.me/some_channel/15"])
def test_ref_must_be_a_public_handle(store: SQLiteStore, tmp_path: Path, ref: str) -> None:
    path = write(tmp_path / "r.json", chat([msg(1, "x")]))
    with pytest.raises(InvalidRequest, match="public source"):
        import_export(store, path, ref=ref)
    assert store.list_sources() == []


def test_unparseable_ref(store: SQLiteStore, tmp_path: Path) -> None:
    with pytest.raises(InvalidSourceRef):
        import_export(store, write(tmp_path / "r.json", chat([msg(1, "x")])), ref="@ab")


def test_ref_with_a_full_account_export_is_refused(
    store: SQLiteStore, db: Path, tmp_path: Path
) -> None:
    account = {"chats": {"list": [chat([msg(1, "a")], chat_id=1), chat([msg(1, "b")], chat_id=2)]}}
    before = dump(db)
    with pytest.raises(InvalidRequest, match="full-account"):
        import_export(store, write(tmp_path / "r.json", account), ref="@somechat")
    assert dump(db) == before


# Failures leave the store as it was -----------------------------------------------------


@pytest.fixture
def seeded(store: SQLiteStore, tmp_path: Path) -> SQLiteStore:
    """A store that already holds a source, so "unchanged" covers existing rows too."""
    import_export(
        store, write(tmp_path / "seed.json", chat([msg(1, "old")], chat_id=1, name="Seed"))
    )
    return store


def big_chat(n: int) -> dict[str, Any]:
    return chat([msg(i, f"message number {i}") for i in range(1, n + 1)])


def test_a_truncated_file_raises_and_leaves_the_store_unchanged(
    seeded: SQLiteStore, db: Path, tmp_path: Path
) -> None:
    full = json.dumps(big_chat(3000)).encode()
    path = tmp_path / "result.json"
    path.write_bytes(full[: int(len(full) * 0.8)])
    before = dump(db)
    with pytest.raises(ImportFormatError, match=r"result\.json is truncated") as info:
        import_export(seeded, path, batch_size=100)  # many batches were written before the end
    assert "chat 'Test chat' (id 777), after message #" in str(info.value)
    assert dump(db) == before


def test_a_malformed_message_names_itself_and_changes_nothing(
    seeded: SQLiteStore, db: Path, tmp_path: Path
) -> None:
    data = big_chat(2000)
    del data["messages"][1500]["date_unixtime"]
    del data["messages"][1500]["date"]
    before = dump(db)
    with pytest.raises(ImportFormatError) as info:
        import_export(seeded, write(tmp_path / "result.json", data), batch_size=100)
    assert str(info.value) == (
        "result.json: in chat 'Test chat' (id 777), message #1501 (id 1501): "
        "no 'date' or 'date_unixtime'"
    )
    assert dump(db) == before


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"id": "12"}, "'id' must be an integer"),
        ({"id": None}, "'id' must be an integer"),
        ({"date_unixtime": "soon"}, "'date_unixtime' is not a number"),
        ({"date_unixtime": None, "date": "yesterday"}, "'date' is not an ISO 8601 date"),
        ({"text": 5}, "'text' must be a string or a list"),
        ({"text": ["a", 5]}, "'text' holds 5, neither a string nor an entity"),
        ({"from_id": 3.5}, "a peer id must be a string"),
        ({"reply_to_message_id": "x"}, "'reply_to_message_id' is not an integer"),
    ],
)
def test_invalid_fields(
    seeded: SQLiteStore, db: Path, tmp_path: Path, change: dict[str, Any], reason: str
) -> None:
    bad = msg(3, "bad") | change
    before = dump(db)
    with pytest.raises(ImportFormatError, match=r"message #3 \(id .*\): " + reason):
        import_export(seeded, write(tmp_path / "r.json", chat([msg(1, "a"), msg(2, "b"), bad])))
    assert dump(db) == before


def test_broken_json_in_the_middle_says_where(
    seeded: SQLiteStore, db: Path, tmp_path: Path
) -> None:
    text = json.dumps(big_chat(2000))
    cut = text.index('"id": 1200,')
    path = tmp_path / "result.json"
    path.write_text(text[:cut] + ",," + text[cut:])
    before = dump(db)
    with pytest.raises(ImportFormatError, match=r"invalid JSON at or before byte \d+") as info:
        import_export(seeded, path)
    assert "after message #1199 (id 1199)" in str(info.value)
    assert dump(db) == before


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"<!DOCTYPE html><html><body>Exported Data</body></html>", "is not JSON"),
        (b"", "truncated"),
        (b'{"about": "x", "contacts": {"list": []}}', "not a Telegram Desktop export"),
        (b"[1, 2, 3]", "top level is not a JSON object"),
        (b'{"name": "x", "id": 1, "messages": {"a": 1}}', "'messages' must be a list"),
        (b'{"name": "x", "id": 1, "messages": [1]}', "message #1 is not a JSON object"),
        (b'{"name": "x", "messages": [], "id": 5}', "before its numeric 'id'"),
        (b'{"name": "x", "id": "7", "messages": []}', "the chat 'id' must be a number"),
    ],
)
def test_files_that_are_not_exports(
    seeded: SQLiteStore, db: Path, tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "export.json"
    path.write_bytes(content)
    before = dump(db)
    with pytest.raises(ImportFormatError, match=reason) as info:
        import_export(seeded, path)
    assert str(info.value).startswith("export.json")
    assert "\n" not in str(info.value)
    assert dump(db) == before


def test_a_missing_file_is_a_clear_error(store: SQLiteStore, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="cannot read"):
        import_export(store, tmp_path / "nope.json")
