"""What every face answers about alerts: ``AlertOut`` (``/v1/alerts``, the MCP tool
``list_alerts``, ``mlens alert list --json``, the app), secrets as ``**********``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolkit.delivery.alert_model import Alert
from toolkit.delivery.alert_post import AlertPost
from toolkit.delivery.status import DestinationOut, destinations_out
from toolkit.store.base import PostStore
from toolkit.wire import UtcTime


class PostOut(BaseModel):
    """An alert's latest post."""

    id: int
    claimed_at: UtcTime
    status: str = Field(description="`claimed` while its destinations wait, then `done`.")
    message_link: str | None = Field(None, description="The matched message; null for a note.")
    score: float | None = None
    held: int = Field(0, description="Matches held back by the cap that this post reports.")


class AlertOut(BaseModel):
    """An alert: its saved search, threshold, cap, latest post and each destination's state."""

    id: int
    query: str
    source_refs: list[str] | None = Field(None, description="null: every source.")
    min_score: float
    max_per_hour: int
    created_at: UtcTime
    held: int = Field(description="Matches held back by the cap, not yet reported.")
    posts_last_hour: int
    last_post: PostOut | None = None
    destinations: list[DestinationOut]


class AlertList(BaseModel):
    """Every alert."""

    items: list[AlertOut]


def alert_out(store: PostStore, alert: Alert, *, posts_last_hour: int) -> AlertOut:
    """An alert as every face answers it: its latest post and, per destination, the
    latest result of its recent posts."""
    recent = store.recent_posts(alert.id, limit=10)
    last = None
    if recent:
        post = AlertPost.of(
            recent[0], query=alert.query, max_per_hour=alert.max_per_hour, destination=0
        )
        last = PostOut(
            id=recent[0].id,
            claimed_at=recent[0].claimed_at,
            status=recent[0].status,
            message_link=post.match.message_link if post.match else None,
            score=post.match.score if post.match else None,
            held=post.held,
        )
    return AlertOut(
        id=alert.id,
        query=alert.query,
        source_refs=list(alert.source_refs) if alert.source_refs is not None else None,
        min_score=alert.min_score,
        max_per_hour=alert.max_per_hour,
        created_at=alert.created_at,
        held=alert.held,
        posts_last_hour=posts_last_hour,
        last_post=last,
        destinations=destinations_out(
            alert.destinations, store.post_ledger().results([p.id for p in recent])
        ),
    )
