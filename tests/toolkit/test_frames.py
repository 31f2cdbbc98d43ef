"""``Table``, ``HitList`` and ``SummaryView``: DataFrame conversion and HTML views."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from toolkit.frames import Table
from toolkit.models import ContextMessage, SearchHit, Section, Source, SourceKind, Summary
from toolkit.tables import per_day_table
from toolkit.views import HitList, SummaryView

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


def test_table_converts_to_pandas_and_polars_with_columns_in_order() -> None:
    table = Table([{"b": 1, "a": "x"}, {"b": 2, "a": "y"}], columns=["a", "b"])
    frame = table.to_pandas()
    assert list(frame.columns) == ["a", "b"]
    assert frame["b"].tolist() == [1, 2]
    polars = table.to_polars()
    assert polars.columns == ["a", "b"]
    assert polars["a"].to_list() == ["x", "y"]
    assert table["a"] == ["x", "y"]
    assert table[1] == {"b": 2, "a": "y"}
    with pytest.raises(KeyError):
        table["missing"]


def test_table_rows_are_copies() -> None:
    table = Table([{"a": 1}])
    table.rows[0]["a"] = 99
    assert table[0]["a"] == 1


def test_table_html_escapes_text_and_links_urls() -> None:
    html = Table([{"text": "<script>x</script>", "link": "https://t.me/a/1"}])._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert '<a href="https://t.me/a/1"' in html


def test_empty_table_converts() -> None:
    table = Table([], columns=["day", "messages"])
    assert table.to_pandas().empty
    assert list(table.to_pandas().columns) == ["day", "messages"]
    assert table.to_polars().columns == ["day", "messages"]


def test_per_day_table_fills_quiet_days_with_zero() -> None:
    source = Source(id=1, title="S", kind=SourceKind.CHAT, handle="demo_src")
    days = [date(2026, 3, 1), date(2026, 3, 1), date(2026, 3, 4)]
    table = per_day_table(source, days)
    assert table["messages"] == [2, 0, 0, 1]
    assert table["day"][0] == date(2026, 3, 1)
    assert table["day"][-1] == date(2026, 3, 4)


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
    assert "score 0.800" in html
    assert "https://t.me/demo_src/5" in html
    assert "https://t.me/demo_src/4" in html
    assert "semantic" in html
    assert "width:90%" in html
    assert "&lt;i&gt;hit&lt;/i&gt;" in html
    assert "&lt;b&gt;it&lt;/b&gt;" in html


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
