"""What both summary engines need to know about one request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from toolkit.models import SourceKind

Family = Literal["period", "source"]


@dataclass(frozen=True, slots=True)
class SummaryContext:
    """One summary request as the engines see it.

    ``family`` is ``"period"`` (messages of ``[started_at, ended_at)``, which the text
    may name) or ``"source"`` (what the source is about: no period wording at all);
    ``kind`` picks the chat or channel variant; ``language`` is an ISO 639-1 code.
    """

    family: Family
    kind: SourceKind
    title: str
    language: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
