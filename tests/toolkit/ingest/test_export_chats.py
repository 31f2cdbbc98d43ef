"""Every chat type and export format: senders, links, times, entities, media, report."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from export_builders import LOCAL, account, chat, forum, message, service, when, write

from toolkit.errors import ImportFormatError, InvalidRequest
from toolkit.ingest import import_export
from toolkit.ingest.export.report import ImportReport
from toolkit.models import Message, MessageFilter, Source
from toolkit.refs import message_link, parse_ref
from toolkit.store import SQLiteStore


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "store.sqlite3")
    yield store
    store.close()


def _import(
    db: SQLiteStore, tmp_path: Path, export: dict[str, Any], **kwargs: Any
) -> tuple[ImportReport, list[Message]]:
    report = import_export(db, write(tmp_path / "result.json", export), **kwargs)
    source_id = report.sources[0].source.id
    return report, db.messages_in_period(source_id, MessageFilter(include_service=True))


def _links(source: Source, messages: list[Message]) -> dict[int, str]:
    return {
        m.messenger_message_id: message_link(source, m.messenger_message_id, topic_id=m.topic_id)
        for m in messages
    }


@pytest.mark.parametrize(
    ("type_", "name"),
    [
        ("personal_chat", "Bob"),
        ("bot_chat", "Weather Bot"),
        ("saved_messages", None),
        ("private_group", "Family"),
    ],
)
def test_chats_without_message_links_get_an_empty_link(
    db: SQLiteStore, tmp_path: Path, type_: str, name: str | None
) -> None:
    export = chat([message(1, "hi"), message(2, "hello")], name=name, type_=type_, id_=4242)
    report, messages = _import(db, tmp_path, export)
    source = report.sources[0].source
    assert source.chat_type == type_
    assert not source.has_links
    assert set(_links(source, messages).values()) == {""}
    if type_ == "saved_messages":
        assert source.title == "Saved Messages"


@pytest.mark.parametrize("type_", ["private_supergroup", "private_channel"])
def test_private_supergroups_and_channels_link_by_internal_id(
    db: SQLiteStore, tmp_path: Path, type_: str
) -> None:
    export = chat([message(5, "post")], name="Private", type_=type_, id_=1_500_000_001)
    report, messages = _import(db, tmp_path, export)
    assert _links(report.sources[0].source, messages) == {5: "https://t.me/c/1500000001/5"}


@pytest.mark.parametrize("type_", ["public_supergroup", "public_channel"])
def test_public_sources_link_by_handle(db: SQLiteStore, tmp_path: Path, type_: str) -> None:
    export = chat([message(7, "post")], name="Public", type_=type_, id_=1_500_000_002)
    report, messages = _import(db, tmp_path, export, ref="@Public_News")
    assert _links(report.sources[0].source, messages) == {7: "https://t.me/public_news/7"}


def test_a_migrated_group_keeps_old_negative_ids_without_links(
    db: SQLiteStore, tmp_path: Path
) -> None:
    export = chat(
        [
            message(-999678449, "from the old basic group", minute=1),
            message(-999678448, "still old", minute=2),
            service(3, "migrate_from_group", title="Old group"),
            message(4, "now a supergroup"),
        ],
        name="Migrated",
        type_="private_supergroup",
        id_=9_888_888_888,
    )
    report, messages = _import(db, tmp_path, export)
    assert _links(report.sources[0].source, messages) == {
        -999678449: "",
        -999678448: "",
        3: "https://t.me/c/9888888888/3",
        4: "https://t.me/c/9888888888/4",
    }


def test_old_channel_posts_with_a_numeric_from_id_are_sent_by_the_channel(
    db: SQLiteStore, tmp_path: Path
) -> None:
    channel_id = 1_234_567_890
    export = chat(
        [
            message(1, "a post", sender="News", sender_id=channel_id, unixtime=False),
            message(2, "signed by an admin", sender_id=55, unixtime=False),
            message(3, "new format", sender_id=f"channel{channel_id}"),
        ],
        name="News",
        type_="private_channel",
        id_=channel_id,
    )
    report, messages = _import(db, tmp_path, export, timezone="Europe/Moscow")
    assert [m.sender_peer_id for m in messages] == [
        f"channel{channel_id}",
        "user55",
        f"channel{channel_id}",
    ]
    assert "bare number as sender" in report.line()


def test_in_a_personal_chat_the_peer_id_equal_to_the_chat_is_a_user(
    db: SQLiteStore, tmp_path: Path
) -> None:
    export = chat([message(1, "hi", sender_id=4242)], name="Bob", type_="personal_chat", id_=4242)
    _, messages = _import(db, tmp_path, export)
    assert messages[0].sender_peer_id == "user4242"


def test_lone_local_dates_are_read_in_the_given_time_zone(db: SQLiteStore, tmp_path: Path) -> None:
    old = {"id": 1, "type": "message", "date": "2020-11-12T12:53:52", "from": "A", "text": "x"}
    export = chat([old], name="Old", type_="private_group", id_=77)
    report, messages = _import(db, tmp_path, export, timezone="Europe/Moscow")
    assert messages[0].posted_at == datetime(2020, 11, 12, 9, 53, 52, tzinfo=UTC)
    assert "1 message had no date_unixtime: read in Europe/Moscow" in report.line()


def test_without_a_zone_lone_dates_are_utc_and_the_report_says_so_once(
    db: SQLiteStore, tmp_path: Path
) -> None:
    export = chat(
        [message(i, "x", unixtime=False) for i in range(1, 4)],
        name="Old",
        type_="private_group",
        id_=77,
    )
    report, messages = _import(db, tmp_path, export)
    assert messages[0].posted_at == when(1) + LOCAL  # the local clock, read as UTC
    line = report.line()
    assert line.count("no date_unixtime") == 1
    assert "3 messages had no date_unixtime and were read as UTC" in line


def test_the_offset_is_learned_from_messages_that_carry_both_dates(
    db: SQLiteStore, tmp_path: Path
) -> None:
    export = account(
        [
            chat([message(1, "new")], name="New", type_="personal_chat", id_=1),
            chat([message(2, "old", unixtime=False)], name="Old", type_="personal_chat", id_=2),
        ]
    )
    report = import_export(db, write(tmp_path / "result.json", export))
    old = db.messages_in_period(report.sources[1].source.id)[0]
    assert old.posted_at == when(2)
    assert "read at UTC+3 h" in report.line()


def test_an_unknown_time_zone_is_refused(db: SQLiteStore, tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", chat([message(1)], name="A", type_="personal_chat", id_=1))
    with pytest.raises(InvalidRequest, match="unknown time zone"):
        import_export(db, path, timezone="Mars/Olympus")


def test_entity_text_is_assembled_exactly(db: SQLiteStore, tmp_path: Path) -> None:
    text = [
        {"type": "text_link", "text": "text link\n\n", "href": "http://example.com/"},
        "example.com and ",
        {"type": "text_link", "text": "https://example.org", "href": "https://example.org/"},
        " and ",
        {"type": "link", "text": "https://a.example/"},
        {"type": "bold", "text": " bold"},
    ]
    _, messages = _import(
        db, tmp_path, chat([message(1, text)], name="A", type_="private_group", id_=1)
    )
    assert messages[0].text == (
        "text link (http://example.com/)\n\nexample.com and https://example.org and "
        "https://a.example/ bold"
    )


MEDIA = [
    ({"media_type": "sticker", "sticker_emoji": "😀", "file": "(File not included.)"}, "sticker",
     "[sticker] 😀"),
    ({"contact_information": {"first_name": "Ann", "last_name": "Lee", "phone_number": "+1"}},
     "contact", "[contact] Ann Lee"),
    ({"location_information": {"latitude": 55.75, "longitude": 37.62}}, "location",
     "[location] 55.75, 37.62"),
    ({"place_name": "Cafe Pushkin", "address": "Tverskoy Blvd 26",
          "location_information": {"latitude": 55.7, "longitude": 37.6}}, "venue",
     "[venue] Cafe Pushkin, Tverskoy Blvd 26"),
    ({"game_title": "Lumberjack", "game_description": "Chop"}, "game", "[game] Lumberjack"),
    ({"todo_list": {"title": "Trip", "items": [{"id": 1, "text": "tickets"},
                                                {"id": 2, "text": "hotel"}]}},
     "todo", "[todo] Trip: tickets; hotel"),
    ({"file": "files/report.pdf", "file_name": "report.pdf", "mime_type": "application/pdf"},
     "file", "[file] report.pdf"),
    ({"file": "(File not included.)", "media_type": "audio_file", "performer": "Queen",
          "title": "Bohemian Rhapsody", "file_name": "queen.mp3"}, "audio_file",
     "[audio file] Queen — Bohemian Rhapsody, queen.mp3"),
    ({"poll": {"question": "Lunch?", "answers": [{"text": "yes"}, {"text": "no"}]}}, "poll",
     "Lunch? — yes / no"),
]  # fmt: skip


def test_media_without_a_caption_reads_as_what_it_is_and_is_searchable(
    db: SQLiteStore, tmp_path: Path
) -> None:
    messages = [message(i + 1, "", **fields) for i, (fields, _, _) in enumerate(MEDIA)]
    messages.append(message(50, "", photo="(File not included.)"))  # a bare photo says nothing
    messages.append(service(51, "pin_message", message_id=1))
    report, stored = _import(db, tmp_path, chat(messages, name="M", type_="private_group", id_=9))
    by_id = {m.messenger_message_id: m for m in stored}
    assert [(by_id[i + 1].media, by_id[i + 1].text) for i in range(len(MEDIA))] == [
        (kind, text) for _, kind, text in MEDIA
    ]
    window = db.scan_window(report.sources[0].source.id, 100)
    # Every captionless media message with something to say is in search; the bare
    # photo and the service message are not.
    assert {row[0] for row in window} == set(range(1, len(MEDIA) + 1))


def test_forum_topics_follow_the_reply_chain_and_keep_their_titles(
    db: SQLiteStore, tmp_path: Path
) -> None:
    report, messages = _import(db, tmp_path, forum())
    source = report.sources[0].source
    topic = {m.messenger_message_id: m.topic_id for m in messages}
    assert topic == {1: 1, 2: 1, 3: 3, 4: 3, 5: 3, 6: 6, 7: 6, 8: 1, 9: 3, 10: 6, 11: 6}
    replies = {m.messenger_message_id: m.reply_to for m in messages if not m.is_service}
    # Posting in a topic is no reply to its creation message; a real reply stays one.
    assert replies == {2: None, 4: None, 5: 4, 7: None, 8: None, 9: 5, 11: 7}
    topics = [(t.topic_id, t.title, t.message_count) for t in db.list_topics(source.id)]
    assert topics == [(1, "General", 2), (3, "Releases", 3), (6, "Jobs", 2)]
    assert [t.topic_id for t in db.source_stats(source.id).topics] == [1, 3, 6]
    links = _links(source, messages)
    assert links[4] == "https://t.me/c/1777000001/3/4"
    assert links[2] == "https://t.me/c/1777000001/2"  # General has no topic segment


def test_topic_and_sender_filters_take_the_window_after_filtering(
    db: SQLiteStore, tmp_path: Path
) -> None:
    report, _ = _import(db, tmp_path, forum())
    sid = report.sources[0].source.id
    in_releases = db.recent_messages(sid, 100, MessageFilter(topic_id=3))
    assert [m.messenger_message_id for m in in_releases] == [4, 5, 9]
    assert [r[0] for r in db.scan_window(sid, 2, MessageFilter(topic_id=3))] == [9, 5]
    bobs = db.scan_window(sid, 1, MessageFilter(sender_peer_ids=["user1002"]))
    assert [r[0] for r in bobs] == [11]  # Bob's most recent, not the source's
    assert db.count_messages(sid, MessageFilter(topic_id=6, sender_peer_ids=["user1002"])) == 1
    assert db.scan_window(sid, 10, MessageFilter(sender_peer_ids=[])) == []


@pytest.mark.parametrize(
    ("ref", "topic", "message_id"),
    [
        ("https://t.me/c/1777000001/3/4", 3, 4),
        ("t.me/team_forum/6/7", 6, 7),
        ("t.me/c/1777000001/4", None, 4),
    ],
)
def test_refs_into_a_topic_resolve_it(ref: str, topic: int | None, message_id: int) -> None:
    parsed = parse_ref(ref)
    assert (parsed.topic_id, parsed.message_id) == (topic, message_id)


def test_a_full_account_export_keeps_every_chat_type(db: SQLiteStore, tmp_path: Path) -> None:
    export = account(
        [
            chat([message(1, "hi")], name="Bob", type_="personal_chat", id_=11),
            chat([message(1, "/start")], name="Bot", type_="bot_chat", id_=12),
            chat([message(1, "note")], name=None, type_="saved_messages", id_=13),
            chat([message(1, "hey")], name="Family", type_="private_group", id_=14),
            forum(),
            chat([message(1, "post")], name="News", type_="public_channel", id_=15),
        ],
        left=[chat([message(1, "bye")], name="Old", type_="private_channel", id_=16)],
    )
    report = import_export(db, write(tmp_path / "result.json", export))
    types = [s.source.chat_type for s in report.sources]
    assert types == [
        "personal_chat",
        "bot_chat",
        "saved_messages",
        "private_group",
        "private_supergroup",
        "public_channel",
        "private_channel",
    ]
    assert report.total.inserted == 6 + len(forum()["messages"])
    assert [t.title for t in db.list_topics(report.sources[4].source.id)] == [
        "General",
        "Releases",
        "Jobs",
    ]


def test_doubtful_input_is_skipped_or_named_in_the_one_line_report(
    db: SQLiteStore, tmp_path: Path
) -> None:
    messages = [
        message(1, "first"),
        message(1, "the same id again"),
        message(2, "the end of time") | {"date": "9999-12-31T00:00:00"},
        {k: v for k, v in message(3, None).items() if k != "date_unixtime"},
        {"id": 4, "type": "unsupported", "date": "2024-04-01T12:00:00"},
    ]
    messages[2].pop("date_unixtime")
    report, stored = _import(db, tmp_path, chat(messages, name=None, type_="private_group", id_=5))
    assert [(m.messenger_message_id, m.text) for m in stored] == [(1, "first"), (3, "")]
    assert report.sources[0].skipped_by_reason == {
        "duplicate id": 1,
        "impossible date": 1,
        "unsupported entry": 1,
    }
    line = report.line()
    assert "skipped 3 (1 duplicate id, 1 impossible date, 1 unsupported entry)" in line
    assert "chat 5 has no name: titled 'Chat 5'" in line
    assert "1 message of c/5 had a null text" in line
    assert "\n" not in line


def test_a_file_in_another_encoding_names_its_first_bad_byte(
    db: SQLiteStore, tmp_path: Path
) -> None:
    export = chat(
        [message(i, "hello") for i in range(1, 400)] + [message(400, "Привет")],
        name="Chat",
        type_="private_group",
        id_=5,
    )
    text = write(tmp_path / "utf8.json", export).read_text(encoding="utf-8")
    path = tmp_path / "cp1251.json"
    path.write_bytes(text.encode("cp1251"))
    first_bad = text.encode("cp1251").index("Привет".encode("cp1251"))
    assert first_bad > 16 * 1024  # beyond the first read chunk
    with pytest.raises(ImportFormatError, match=rf"byte {first_bad} \(0xcf\) is invalid"):
        import_export(db, path)
    assert db.list_sources() == []
