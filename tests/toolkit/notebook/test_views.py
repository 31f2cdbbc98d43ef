"""``HitList`` and ``SummaryView``: DataFrame conversion and HTML views."""

from __future__ import annotations

from datetime import UTC, datetime

from text_checks import assert_shows

from toolkit.models import ContextMessage, SearchHit, Section, Summary
from toolkit.notebook.table import Table
from toolkit.notebook.views import HitList, SummaryView

T = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _hit(mid: int, score: float, text: str) -> SearchHit:
    ctx = ContextMessage(
        str(mid - 1), "before <b>it</b>", "user1", T, f"https://t.me/demo_src/{mid - 1}"
    )
    return SearchHit(
        source_ref="@demo_src",
        messenger_message_id=str(mid),
        source_title="Demo",
        text=text,
        message_link=f"https://t.me/demo_src/{mid}",
        posted_at=T,
        score=score,
        context_before=[ctx],
        signals={"semantic": 0.9, "lexical": 0.5, "phrase": 0.0, "short_factor": 1.0},
    )


def test_hit_list_table_has_rank_score_and_each_signal() -> None:
    hits = HitList(
        [_hit(5, 0.8, "first"), _hit(9, 0.4, "second")], query="q", source_ref="@demo_src"
    )
    frame = hits.to_pandas()
    assert frame["rank"].tolist() == [1, 2]
    assert frame["messenger_message_id"].tolist() == ["5", "9"]
    assert {"semantic", "lexical", "phrase", "short_factor"} <= set(frame.columns)
    assert hits.to_polars()["score"].to_list() == [0.8, 0.4]
    assert hits.ids == ["5", "9"]
    assert len(hits) == 2
    assert hits[0].text == "first"


def test_hit_list_html_shows_score_signals_context_and_link_escaped() -> None:
    html = HitList([_hit(5, 0.8, "a <i>hit</i>")], query="q", source_ref="@demo_src")._repr_html_()
    assert_shows(
        html,
        "score 0.800",
        "https://t.me/demo_src/5",
        "https://t.me/demo_src/4",
        "semantic",
        "width:90%",
        "&lt;i&gt;hit&lt;/i&gt;",
        "&lt;b&gt;it&lt;/b&gt;",
    )


def test_summary_view_sections_frame_and_html_links() -> None:
    summary = Summary("@demo_src", "Two topics.", [Section("Trains", "Tickets <cheap>")], ["5"])
    important = Table([{"messenger_message_id": "5", "posted_at": T, "sender": "Anna",
                        "text": "tickets", "message_link": "https://t.me/demo_src/5"}])  # fmt: skip
    view = SummaryView(summary, important)
    assert view.to_pandas()["title"].tolist() == ["Trains"]
    assert view.to_polars()["body"].to_list() == ["Tickets <cheap>"]
    html = view._repr_html_()
    assert '<a href="https://t.me/demo_src/5"' in html
    assert "&lt;cheap&gt;" in html
    assert view.text == "Two topics."
