"""The HTML exporter's service sentences read back into the JSON export's actions: the
stored text is the one the JSON import writes for the same message."""

from __future__ import annotations

from typing import Any

import pytest

from toolkit.ingest.export.html.service import names, service_fields
from toolkit.ingest.export.json.text import service_text

GROUP, TOPIC = "create_group", "topic_created"
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("Ann created group «Garden»", {"action": GROUP, "title": "Garden"}, "Ann"),
    ("Ann created group «Garden» with members Bob", {"action": GROUP, "title": "Garden"}, "Ann"),
    ("Channel «News» created", {"action": "create_channel", "title": "News"}, "News"),
    (
        "Channel title changed to «News 2»",
        {"action": "edit_group_title", "title": "News 2"},
        "News",
    ),
    ("Ann changed group title to «Сад»", {"action": "edit_group_title", "title": "Сад"}, "Ann"),
    ("Ann changed group photo", {"action": "edit_group_photo"}, "Ann"),
    ("Channel photo removed", {"action": "delete_group_photo"}, "News"),
    (
        "Ann invited Bob, Carol and Олег",
        {"action": "invite_members", "members": ["Bob", "Carol", "Олег"]},
        "Ann",
    ),
    ("Ann invited Ann", {"action": "invite_members", "members": ["Ann"]}, "Ann"),
    ("Ann removed Bob", {"action": "remove_members", "members": ["Bob"]}, "Ann"),
    ("Bob removed Bob", {"action": "remove_members", "members": ["Bob"]}, "Bob"),
    ("Bob joined group by link from Ann", {"action": "join_group_by_link"}, "Bob"),
    ("Bob joined group by request", {"action": "join_group_by_request"}, "Bob"),
    ("Ann converted this group to a supergroup", {"action": "migrate_to_supergroup"}, "Ann"),
    (
        "Ann converted a basic group to this supergroup «Old»",
        {"action": "migrate_from_group", "title": "Old"},
        "Ann",
    ),
    ("Ann started voice chat (120 seconds)", {"action": "group_call"}, "Ann"),
    (
        "Ann invited Bob to the voice chat",
        {"action": "invite_to_group_call", "members": ["Bob"]},
        "Ann",
    ),
    ("Ann created topic «Releases»", {"action": TOPIC, "title": "Releases"}, "Ann"),
    ("Ann changed topic title to «Jobs»", {"action": "topic_edit", "new_title": "Jobs"}, "Ann"),
    ("Тарас joined Telegram", {"action": "joined_telegram"}, "Тарас"),
]


@pytest.mark.parametrize(("sentence", "fields", "actor"), CASES, ids=[c[0] for c in CASES])
def test_a_sentence_reads_as_the_json_action(
    sentence: str, fields: dict[str, Any], actor: str
) -> None:
    got = service_fields(sentence, chat_title="News", pinned=None)
    assert got == {"actor": actor, **fields}
    assert service_text(got) == service_text({"actor": actor, **fields})


def test_a_pin_names_the_message_its_link_points_at() -> None:
    got = service_fields("Ann pinned this message", chat_title="X", pinned=42)
    assert service_text(got) == "Ann pinned message 42"


def test_an_unknown_sentence_is_kept_as_it_is() -> None:
    got = service_fields(
        "You have sent the following documents: Passport", chat_title="X", pinned=None
    )
    assert got == {
        "actor": None,
        "information_text": "You have sent the following documents: Passport",
    }
    assert service_text(got) == "You have sent the following documents: Passport"


def test_lists_of_names_split_as_the_exporter_joins_them() -> None:
    assert names("Ann") == ["Ann"]
    assert names("Ann and Bob") == ["Ann", "Bob"]
    assert names("Ann, Bob and Олег Петренко") == ["Ann", "Bob", "Олег Петренко"]
