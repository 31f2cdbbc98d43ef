"""The documents a destination delivers (``Post``: a schedule's ``Digest``, an alert's
``toolkit.delivery.alerts.AlertPost``), and the one interface every destination's
adapter has (``Adapter``).

An adapter sends one digest and says in one line what it did; a failure is a
``DeliveryFailed`` whose message says why in words a person can act on (never a secret).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, Protocol

from toolkit.errors import UpstreamError
from toolkit.models import iso_z
from toolkit.wire import SummaryOut


class DeliveryFailed(UpstreamError):
    """A destination refused or could not be reached; ``retry_after`` when it said when."""

    title = "Delivery failed"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message, retry_after=retry_after)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True, kw_only=True)
class Digest:
    """One run's digest, as every destination is handed it.

    Attributes:
        schedule_id, run_id: where it comes from.
        destination: the destination's place in the schedule (with ``run_id``, the
            delivery's id: a receiver may drop a repeat by it).
        source_title, source_ref: the source as people know it.
        topic_id: the forum topic it covers, if one.
        period_start, period_end: ``[start, end)`` in UTC; ``periods`` of the rule's
            (more than one after downtime).
        zone: the source's time zone, in which the period is shown.
        summary: the digest itself (the /v1 summary shape).
    """

    schedule_id: int
    run_id: int
    destination: int
    source_title: str
    source_ref: str
    topic_id: int | None
    period_start: datetime
    period_end: datetime
    periods: int
    zone: tzinfo
    summary: SummaryOut

    @property
    def delivery_id(self) -> str:
        """The same for every attempt at this destination in this run."""
        return f"{self.run_id}-{self.destination}"

    def title(self) -> str:
        """``<source>: <first day> – <last day>`` in the source's zone."""
        start = self.period_start.astimezone(self.zone)
        end = self.period_end.astimezone(self.zone)
        return f"{self.source_title}: {start:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M}"

    def blocks(self) -> list[tuple[str, str]]:
        """``(title, text)`` blocks: the heading and summary first, then each section."""
        head = self.summary.summary.strip()
        if self.periods > 1:
            head += f"\n({self.periods} periods, caught up in one digest.)"
        out = [(self.title(), head)]
        out += [(s.title, s.body.strip()) for s in self.summary.sections]
        return out

    def document(self) -> dict[str, Any]:
        """The JSON document a webhook posts."""
        return {
            "delivery_id": self.delivery_id,
            "schedule_id": self.schedule_id,
            "run_id": self.run_id,
            "source_ref": self.source_ref,
            "source_title": self.source_title,
            "topic_id": self.topic_id,
            "period": {
                "start": iso_z(self.period_start),
                "end": iso_z(self.period_end),
                "periods": self.periods,
            },
            "summary": self.summary.model_dump(mode="json"),
        }


class Post(Protocol):
    """What an adapter sends: a title, text blocks, a JSON document, a delivery id (the
    same on every try of one delivery: a receiver drops a repeat by it)."""

    @property
    def delivery_id(self) -> str:
        """The same for every attempt of one delivery to one destination."""
        ...

    def title(self) -> str:
        """A one-line title (an e-mail's subject, a feed entry's title)."""
        ...

    def blocks(self) -> list[tuple[str, str]]:
        """``(title, text)`` blocks, in order (``render`` makes text, HTML, messages)."""
        ...

    def document(self) -> dict[str, Any]:
        """The JSON document a webhook posts."""
        ...


class Adapter(Protocol):
    """A destination's sender."""

    def deliver(self, digest: Post) -> str:
        """Send ``digest`` (a schedule's digest or an alert's post); one line saying what
        was sent.

        Raises:
            DeliveryFailed: it was not delivered (the message says why).
        """
        ...
