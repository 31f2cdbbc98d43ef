"""What an alert posts (``AlertPost``, a ``digest.Post``): one matched message with its
link and score, and, when the cap held some back, how many since when.

A post's body is kept in the store as JSON (``post_body``) when it is claimed, so every
try at every destination sends the same words; ``AlertPost.of`` reads it back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from toolkit.models import SearchHit, iso_z
from toolkit.store.alert_rows import PostRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class Match:
    """A matched message as a post shows it."""

    source_ref: str
    source_title: str
    messenger_message_id: str
    text: str
    message_link: str
    posted_at: datetime
    score: float

    @classmethod
    def of(cls, hit: SearchHit) -> Match:
        """The match a search hit is: each of its fields, as the hit has it."""
        return cls(**{f.name: getattr(hit, f.name) for f in fields(cls)})

    def document(self) -> dict[str, Any]:
        """The match as JSON."""
        return {
            "source_ref": self.source_ref,
            "source_title": self.source_title,
            "messenger_message_id": self.messenger_message_id,
            "text": self.text,
            "message_link": self.message_link,
            "posted_at": iso_z(self.posted_at),
            "score": self.score,
        }


def post_body(match: Match | None, held: int, held_since: datetime | None) -> str:
    """A post's body as the store keeps it: the match (or none, for a note of held
    matches alone) and the held count since when (0: none)."""
    return json.dumps(
        {
            "match": match.document() if match is not None else None,
            "held": held,
            "held_since": iso_z(held_since) if held_since is not None else None,
        },
        ensure_ascii=False,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AlertPost:
    """One post of an alert to one destination."""

    alert_id: int
    post_id: int
    destination: int
    query: str
    max_per_hour: int
    match: Match | None
    held: int
    held_since: datetime | None

    @classmethod
    def of(cls, post: PostRecord, *, query: str, max_per_hour: int, destination: int) -> AlertPost:
        """The post a stored record holds, for destination ``destination``."""
        body = json.loads(post.body)
        found = body.get("match")
        since = body.get("held_since")
        return cls(
            alert_id=post.alert_id,
            post_id=post.id,
            destination=destination,
            query=query,
            max_per_hour=max_per_hour,
            match=None
            if found is None
            else Match(**{**found, "posted_at": datetime.fromisoformat(found["posted_at"])}),
            held=int(body.get("held") or 0),
            held_since=datetime.fromisoformat(since) if since else None,
        )

    @property
    def delivery_id(self) -> str:
        """The same for every attempt at this destination of this post."""
        return f"alert-{self.post_id}-{self.destination}"

    def title(self) -> str:
        """``Alert "<query>": <source>``."""
        where = self.match.source_title if self.match is not None else "matches held back"
        return f'Alert "{self.query[:80]}": {where}'

    def held_note(self) -> str | None:
        """How many matches the cap held back since when; ``None`` when none."""
        if not self.held:
            return None
        since = f" since {self.held_since:%Y-%m-%d %H:%M} UTC" if self.held_since else ""
        return (
            f"{self.held} more matching message(s){since} were not posted: "
            f"this alert posts at most {self.max_per_hour} an hour."
        )

    def blocks(self) -> list[tuple[str, str]]:
        """The match (its text, link, score and time), then the held note."""
        out = []
        if self.match is not None:
            m = self.match
            lines = [m.text.strip(), m.message_link] if m.message_link else [m.text.strip()]
            lines.append(f"(score {m.score:.2f}, posted {m.posted_at:%Y-%m-%d %H:%M} UTC)")
            out.append((self.title(), "\n".join(lines)))
        note = self.held_note()
        if note is not None:
            out.append(("Held back" if out else self.title(), note))
        return out

    def document(self) -> dict[str, Any]:
        """The JSON document a webhook posts."""
        return {
            "delivery_id": self.delivery_id,
            "alert_id": self.alert_id,
            "post_id": self.post_id,
            "query": self.query,
            "match": self.match.document() if self.match is not None else None,
            "held": {
                "count": self.held,
                "since": iso_z(self.held_since) if self.held_since else None,
            }
            if self.held
            else None,
        }
