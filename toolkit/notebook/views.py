"""Notebook views of search hits and summaries: tables for analysis, HTML for reading.

``HitList`` and ``SummaryView`` wrap the toolkit's own ``SearchHit`` and ``Summary``
(never copies with other fields), add ``.to_pandas()`` / ``.to_polars()`` through
``Table``, and an ``_repr_html_`` that shows what a reader needs at a glance: the score
with a bar per signal, the message between its neighbours, the link, and in a forum the
title of the hit's topic.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.models import ContextMessage, SearchHit, Summary, iso_z
from toolkit.notebook.table import Table

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped,unused-ignore]
    import polars as pl

_BAR = (
    '<div style="display:flex;align-items:center;gap:6px;font-size:12px">'
    '<span style="width:88px">{name}</span>'
    '<span style="display:inline-block;width:120px;height:8px;background:#eee">'
    '<span style="display:block;height:8px;width:{pct:.0f}%;background:{color}"></span></span>'
    "<span>{value:.3f}</span></div>"
)
_COLORS = {"semantic": "#4c78a8", "lexical": "#f58518", "phrase": "#54a24b"}


def _context_html(items: Sequence[ContextMessage]) -> str:
    return "".join(
        f'<div style="color:#777;font-size:12px;margin-left:12px">'
        f'<a href="{html.escape(c.message_link)}" target="_blank">'
        f"#{html.escape(c.messenger_message_id)}</a> "
        f"{html.escape(c.text[:280])}</div>"
        for c in items
    )


def hit_html(hit: SearchHit, rank: int | None = None, *, topic: str | None = None) -> str:
    """One hit as an HTML card: score and signal bars, context around the message, link,
    and ``topic``, the title of the forum topic the hit is in, when given."""
    bars = "".join(
        _BAR.format(
            name=html.escape(name),
            pct=max(0.0, min(1.0, value)) * 100,
            color=_COLORS.get(name, "#b279a2"),
            value=value,
        )
        for name, value in (hit.signals or {}).items()
    )
    number = f"#{rank} · " if rank is not None else ""
    where = f" · topic <b>{html.escape(topic)}</b>" if topic is not None else ""
    return (
        '<div style="border:1px solid #ddd;border-radius:6px;padding:8px;margin:6px 0">'
        f'<div style="font-size:13px"><b>{number}score {hit.score:.3f}</b> · '
        f'<a href="{html.escape(hit.message_link)}" target="_blank">'
        f"{html.escape(hit.message_link)}</a>"
        f" · {html.escape(iso_z(hit.posted_at))}{where}</div>"
        f"{_context_html(hit.context_before)}"
        f'<div style="margin:4px 0 4px 12px;font-weight:500">{html.escape(hit.text)}</div>'
        f"{_context_html(hit.context_after)}"
        f'<div style="margin-top:4px">{bars}</div></div>'
    )


def _hit_row(rank: int, hit: SearchHit, topic: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "rank": rank,
        "score": hit.score,
        "messenger_message_id": hit.messenger_message_id,
        "posted_at": hit.posted_at,
        "topic": topic,
        "text": hit.text,
        "message_link": hit.message_link,
        "context_before": " ⏎ ".join(c.text for c in hit.context_before),
        "context_after": " ⏎ ".join(c.text for c in hit.context_after),
    }
    row.update(hit.signals or {})
    return row


class HitList(Sequence[SearchHit]):
    """Ranked hits of one search, best first, with the query that found them.

    Args:
        hits: the hits, best first.
        query: the query that found them.
        source_ref: the source searched, as the caller named it.
        topics: in a forum, the title of each hit's topic by its ``messenger_message_id``
            (empty for other sources).
    """

    def __init__(
        self,
        hits: Sequence[SearchHit],
        *,
        query: str,
        source_ref: str,
        topics: Mapping[str, str] | None = None,
    ) -> None:
        self.hits = list(hits)
        self.query = query
        self.source_ref = source_ref
        self.topics = dict(topics or {})

    def topic_of(self, hit: SearchHit) -> str | None:
        """The title of the forum topic ``hit`` is in; ``None`` outside forums."""
        return self.topics.get(hit.messenger_message_id)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: Any) -> Any:
        return self.hits[index]

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    @property
    def ids(self) -> list[str]:
        """Message ids in rank order."""
        return [hit.messenger_message_id for hit in self.hits]

    def table(self) -> Table:
        """One row per hit: rank, score, each signal, text, link and the context as text;
        in a forum, the title of the hit's topic (column ``topic``)."""
        rows = [_hit_row(rank, h, self.topic_of(h)) for rank, h in enumerate(self.hits, 1)]
        if not self.topics:
            for row in rows:
                del row["topic"]
        return Table(rows, title=f"{self.source_ref}: {self.query!r}")

    def to_pandas(self) -> pd.DataFrame:
        """The hits as a pandas DataFrame (see ``table``)."""
        return self.table().to_pandas()

    def to_polars(self) -> pl.DataFrame:
        """The hits as a polars DataFrame (see ``table``)."""
        return self.table().to_polars()

    def _repr_html_(self) -> str:
        head = (
            f"<p><b>{len(self.hits)} hits</b> for <code>{html.escape(self.query)}</code>"
            f" in {html.escape(self.source_ref)}</p>"
        )
        return head + "".join(
            hit_html(hit, rank, topic=self.topic_of(hit)) for rank, hit in enumerate(self.hits, 1)
        )

    def __repr__(self) -> str:
        return f"<HitList {self.source_ref} {self.query!r}: {len(self.hits)} hits>"


class SummaryView:
    """A ``Summary`` with its important messages resolved to text and links.

    Args:
        summary: the summary as the engine wrote it.
        important: one row per important message (``messenger_message_id``,
            ``posted_at``, ``sender``, ``text``, ``message_link``), in the summary's order.
    """

    def __init__(self, summary: Summary, important: Table) -> None:
        self.summary = summary
        self.important = important

    @property
    def text(self) -> str:
        """The summary's prose."""
        return self.summary.summary

    def table(self) -> Table:
        """One row per section: position, title, body."""
        rows = [
            {"section": i, "title": s.title, "body": s.body}
            for i, s in enumerate(self.summary.sections, 1)
        ]
        return Table(rows, columns=["section", "title", "body"], title=self.summary.source_ref)

    def to_pandas(self) -> pd.DataFrame:
        """The sections as a pandas DataFrame (``important`` has the messages)."""
        return self.table().to_pandas()

    def to_polars(self) -> pl.DataFrame:
        """The sections as a polars DataFrame (``important`` has the messages)."""
        return self.table().to_polars()

    def _repr_html_(self) -> str:
        s = self.summary
        sections = "".join(
            f"<h4 style='margin:8px 0 2px'>{html.escape(sec.title)}</h4>"
            f"<p style='margin:0'>{html.escape(sec.body)}</p>"
            for sec in s.sections
        )
        important = "".join(
            f'<li><a href="{html.escape(row["message_link"])}" target="_blank">'
            f"#{html.escape(str(row['messenger_message_id']))}</a> "
            f"{html.escape(str(row['text'])[:200])}</li>"
            for row in self.important
        )
        return (
            f"<div><p style='font-size:12px;color:#777'>{html.escape(s.source_ref)} · "
            f"engine {html.escape(s.engine)} · language {html.escape(s.language)}</p>"
            f"<p>{html.escape(s.summary)}</p>{sections}"
            f"<h4 style='margin:8px 0 2px'>Important messages</h4><ul>{important}</ul></div>"
        )

    def __repr__(self) -> str:
        return (
            f"<SummaryView {self.summary.source_ref} ({self.summary.engine}, "
            f"{self.summary.language}): {len(self.summary.sections)} sections, "
            f"{len(self.important)} important messages>"
        )
