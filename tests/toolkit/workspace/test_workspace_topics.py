"""The views of a forum search (table, HTML card, explain) of a Workspace (``Lab``) show
each hit with the context of its own topic, as the service does."""

from __future__ import annotations

from pathlib import Path

from export_builders import forum, write

from toolkit import Lab, Workspace
from toolkit.notebook.views import hit_html

FORUM = "https://t.me/c/1777000001"
# export_builders.forum: General 2, 8; Releases 4, 5, 9; Jobs 7, 11.
TEXTS = {
    1: {"welcome to the forum", "lunch anyone?"},
    3: {"release 1.2 is out", "which build?", "build 1.2.3"},
    6: {"we need a designer", "portfolio attached"},
}


def test_tables_and_cards_show_the_context_of_the_hits_topic(
    workspace: Workspace, tmp_path: Path
) -> None:
    workspace.import_export(write(tmp_path / "result.json", forum()))
    hits = Lab(workspace).search(FORUM, "release build", limit=20)
    assert len(hits) == 7
    frame = hits.to_pandas()
    for hit, before, after in zip(
        hits, frame["context_before"], frame["context_after"], strict=True
    ):
        topic = next(t for t, texts in TEXTS.items() if hit.text in texts)
        shown = [text for text in (*before.split(" ⏎ "), *after.split(" ⏎ ")) if text]
        assert set(shown) <= TEXTS[topic], (hit.text, shown)
    card = hit_html(next(h for h in hits if h.text == "which build?"))
    assert "release 1.2 is out" in card
    assert "build 1.2.3" in card
    assert "lunch anyone?" not in card
    assert "we need a designer" not in card
    explained = Lab(workspace).explain(FORUM, "release build", topic_id=3)
    assert len(explained.to_pandas()) == 3


def test_each_hit_of_a_forum_names_its_topic_in_the_table_and_the_card(
    workspace: Workspace, tmp_path: Path
) -> None:
    workspace.import_export(write(tmp_path / "result.json", forum()))
    hits = Lab(workspace).search(FORUM, "release build", limit=20)
    # Each topic by its stored title (Hiring was renamed Jobs), General for the rest.
    titles = {1: "General", 3: "Releases", 6: "Jobs"}
    frame = hits.to_pandas()
    for hit, shown in zip(hits, frame["topic"], strict=True):
        topic = next(t for t, texts in TEXTS.items() if hit.text in texts)
        assert hits.topic_of(hit) == shown == titles[topic], hit.text
    html = hits._repr_html_()
    assert html.count(" · topic <b>") == len(hits)
    card = hit_html(next(h for h in hits if h.text == "portfolio attached"), topic="Jobs")
    assert " · topic <b>Jobs</b>" in card
    assert "topic <b>" not in hit_html(hits[0])


def test_hits_of_a_source_without_topics_have_no_topic(
    workspace: Workspace, trip_chat: str
) -> None:
    hits = Lab(workspace).search(trip_chat, "train tickets", limit=3)
    assert len(hits) == 3
    assert [hits.topic_of(h) for h in hits] == [None, None, None]
    assert "topic" not in hits.to_pandas().columns
    assert "topic <b>" not in hits._repr_html_()
