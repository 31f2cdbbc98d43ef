"""Reactions of exported messages: read, stored on both stores, replaced by a re-import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from export_builders import (
    chat,
    custom_reaction,
    emoji_reaction,
    message,
    paid_reaction,
    service,
    write,
)
from store_backends import Store

from toolkit.errors import ImportFormatError
from toolkit.ingest import import_export
from toolkit.ingest.export.json.reactions import export_reactions
from toolkit.models import Message

pytestmark = pytest.mark.both_stores  # each test runs on SQLite and on PostgreSQL

DOCUMENT = "5368324170671202286"


def team(*messages: dict[str, Any]) -> dict[str, Any]:
    return chat(list(messages), name="Team", type_="private_supergroup", id_=1_555_000_001)


def stored(store: Store) -> dict[int, Message]:
    (stats,) = store.list_sources()
    return {m.messenger_message_id: m for m in store.iter_messages(stats.source.id)}


def with_reactions(*reactions: dict[str, Any]) -> dict[str, Any]:
    return team(
        message(1, "lunch at 13:40 tomorrow?", reactions=list(reactions)),
        message(2, "no reactions here"),
    )


def test_counts_per_emoji_custom_emoji_and_paid_are_imported(store: Store, tmp_path: Path) -> None:
    export = with_reactions(
        emoji_reaction("👍", 3, recent=["Bob", "Carol"]),
        custom_reaction(DOCUMENT, 1),
        emoji_reaction("❤️", 5),
        paid_reaction(50),
    )
    report = import_export(store, write(tmp_path / "result.json", export))
    assert report.total.inserted == 2
    messages = stored(store)
    assert messages[1].reactions == (
        ("paid", 50),
        ("❤️", 5),
        ("👍", 3),
        (f"custom:{DOCUMENT}", 1),
    )
    assert messages[1].reaction_count == 59
    assert messages[2].reactions == ()
    assert messages[2].reaction_count == 0
    # Exports carry no views or forwards: unknown, not zero.
    assert (messages[1].views, messages[1].forwards) == (None, None)


def test_a_reimport_with_new_counts_replaces_them(store: Store, tmp_path: Path) -> None:
    first = with_reactions(emoji_reaction("👍", 3), custom_reaction(DOCUMENT, 1))
    import_export(store, write(tmp_path / "a.json", first))
    again = import_export(store, write(tmp_path / "a.json", first))
    assert (again.total.updated, again.total.unchanged) == (0, 2)  # the same file: nothing
    later = with_reactions(emoji_reaction("👍", 4), emoji_reaction("🎉", 2))
    report = import_export(store, write(tmp_path / "b.json", later))
    assert (report.total.inserted, report.total.updated, report.total.unchanged) == (0, 1, 1)
    assert stored(store)[1].reactions == (("👍", 4), ("🎉", 2))  # the custom one is gone
    gone = import_export(store, write(tmp_path / "c.json", with_reactions()))
    assert gone.total.updated == 1
    assert stored(store)[1].reactions == ()


def test_an_older_edit_does_not_bring_back_older_counts(store: Store, tmp_path: Path) -> None:
    newer = team(
        message(1, "v2", edited="2024-04-01T14:00:00", edited_unixtime="1711969200",
                reactions=[emoji_reaction("👍", 7)]),
    )  # fmt: skip
    older = team(
        message(1, "v1", edited="2024-04-01T13:00:00", edited_unixtime="1711965600",
                reactions=[emoji_reaction("👍", 2)]),
    )  # fmt: skip
    import_export(store, write(tmp_path / "new.json", newer))
    report = import_export(store, write(tmp_path / "old.json", older))
    assert report.total.unchanged == 1
    assert stored(store)[1].reactions == (("👍", 7),)
    assert stored(store)[1].text == "v2"


def test_service_messages_and_odd_but_valid_lists(store: Store, tmp_path: Path) -> None:
    export = team(
        service(1, "pin_message", message_id=2),
        # Written by hand (no type), a type this reader does not know, a zero count, a key
        # given twice: counted once, summed.
        message(2, "x", reactions=[{"emoji": "🔥", "count": 2}, {"type": "stars", "count": 4},
                                   emoji_reaction("😢", 0), emoji_reaction("🔥", 1)]),
    )  # fmt: skip
    import_export(store, write(tmp_path / "result.json", export))
    assert stored(store)[2].reactions == (("stars", 4), ("🔥", 3))


@pytest.mark.parametrize(
    ("reactions", "reason"),
    [
        ("👍", "'reactions' must be a list"),
        (["👍"], "a reaction must be a JSON object"),
        ([{"type": "emoji", "count": 1}], "without its 'emoji'"),
        ([{"type": "custom_emoji", "count": 1}], "without its 'document_id'"),
        ([{"type": "emoji", "emoji": "👍", "count": "3"}], "non-negative integer"),
        ([{"type": "emoji", "emoji": "👍", "count": -1}], "non-negative integer"),
        ([{"type": "emoji", "emoji": "👍", "count": True}], "non-negative integer"),
    ],
)
def test_a_malformed_list_is_refused_saying_where(
    store: Store, tmp_path: Path, reactions: Any, reason: str
) -> None:
    export = team(message(1, "fine"), message(2, "broken", reactions=reactions))
    with pytest.raises(ImportFormatError, match=rf"message #2 \(id 2\).*{reason}"):
        import_export(store, write(tmp_path / "result.json", export))
    assert store.list_sources() == []  # all or nothing


def test_reaction_keys_are_cleaned_as_texts_are(store: Store, tmp_path: Path) -> None:
    broken = [emoji_reaction("👍\x00", 1), emoji_reaction("\ud83d", 1)]  # NUL, half an emoji
    path = tmp_path / "result.json"
    path.write_text(json.dumps(team(message(1, "x", reactions=broken))), encoding="utf-8")
    import_export(store, path)
    # As in texts: NUL removed; yajl reads a lone surrogate escape as "?" (another reader's
    # U+FFFD would be cleaned too): either way both stores can hold it.
    assert stored(store)[1].reactions in ((("?", 1), ("👍", 1)), (("\ufffd", 1), ("👍", 1)))


def test_export_reactions_is_pure() -> None:
    raw = {"reactions": [custom_reaction("7", 2)]}
    assert export_reactions(raw) == (("custom:7", 2),)
    assert raw == {"reactions": [custom_reaction("7", 2)]}
    assert export_reactions({}) == export_reactions({"reactions": None}) == ()
