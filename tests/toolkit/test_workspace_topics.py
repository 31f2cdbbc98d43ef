"""The Workspace's views of a forum search (table, HTML card, explain) show each hit with
the context of its own topic, as the service does."""

from __future__ import annotations

from pathlib import Path

from export_builders import forum, write

from toolkit import Workspace
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
    hits = workspace.search(FORUM, "release build", limit=20)
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
    explained = workspace.explain(FORUM, "release build", topic_id=3)
    assert len(explained.to_pandas()) == 3
