"""What a schedule is: a source (or one forum topic of it), a ``Rule``, the digest's
language and engine, and where it goes (``Destination``: one model per kind).

Destinations travel as JSON (the store keeps them so, the service takes them so). A
secret (a bot token, a webhook's signing secret) is a ``SecretStr``: kept as given in
the store (``stored_destinations``), shown as ``**********`` everywhere else
(``model_dump``, ``repr``, logs).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, ValidationError

from toolkit.delivery.periods import Rule
from toolkit.errors import InvalidRequest
from toolkit.requests.fields import LanguageCode, SourceRefStr
from toolkit.store.schedule_rows import ScheduleRecord

MAX_DESTINATIONS = 10


class _Destination(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TelegramDestination(_Destination):
    """A Telegram chat, through the Bot API (the bot must be a member of the chat)."""

    kind: Literal["telegram"] = "telegram"
    chat_id: str = Field(min_length=1, max_length=100, description="Chat id or @channel.")
    bot_token: SecretStr | None = Field(
        None, description="The bot's token; default MLENS_TELEGRAM_BOT_TOKEN."
    )

    def label(self) -> str:
        """What a person reads for it."""
        return f"telegram {self.chat_id}"


class WebhookDestination(_Destination):
    """A JSON POST of the digest, signed with HMAC-SHA256 (``webhook.py``)."""

    kind: Literal["webhook"] = "webhook"
    url: str = Field(pattern=r"^https?://\S+$", max_length=2000)
    secret: SecretStr = Field(description="The signing secret the receiver shares.")

    def label(self) -> str:
        """What a person reads for it (the URL without its query, which may hold a key)."""
        return f"webhook {self.url.split('?', 1)[0]}"


class EmailDestination(_Destination):
    """E-mail over the SMTP server of the settings (``MLENS_SMTP_*``)."""

    kind: Literal["email"] = "email"
    to: list[Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+$", max_length=254)]] = Field(
        min_length=1, max_length=20
    )

    def label(self) -> str:
        """What a person reads for it."""
        return f"email {', '.join(self.to)}"


class FeedDestination(_Destination):
    """An Atom feed of the schedule's digests, served at ``/v1/schedules/{id}/feed.atom``."""

    kind: Literal["feed"] = "feed"

    def label(self) -> str:
        """What a person reads for it."""
        return "atom feed"


Destination = Annotated[
    TelegramDestination | WebhookDestination | EmailDestination | FeedDestination,
    Field(discriminator="kind"),
]
_DESTINATIONS: TypeAdapter[list[Destination]] = TypeAdapter(list[Destination])


def parse_destinations(value: str | Sequence[Any]) -> list[Destination]:
    """Destinations from JSON text or a list of mappings (or models).

    Raises:
        InvalidRequest: none, more than ``MAX_DESTINATIONS``, or one that is malformed
            (``field="destinations"``; the message never quotes a secret).
    """
    try:
        found = (
            _DESTINATIONS.validate_json(value)
            if isinstance(value, str)
            else _DESTINATIONS.validate_python(list(value))
        )
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidRequest(f"destination {where}: {first['msg']}", field="destinations") from None
    if not 1 <= len(found) <= MAX_DESTINATIONS:
        raise InvalidRequest(
            f"a schedule has 1..{MAX_DESTINATIONS} destinations", field="destinations"
        )
    return found


def stored_destinations(destinations: Sequence[Destination]) -> str:
    """The destinations as the store keeps them: JSON with the secrets as given."""

    def reveal(value: Any) -> Any:
        return value.get_secret_value() if isinstance(value, SecretStr) else value

    return json.dumps(
        [{k: reveal(getattr(d, k)) for k in type(d).model_fields} for d in destinations],
        ensure_ascii=False,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleSpec:
    """A schedule to add: the source (``@handle``, a link, ``c/<id>``), the rule, the
    digest's language and engine (``None``: the settings'), the forum topic (``None``:
    the whole source) and the destinations."""

    source_ref: str
    rule: Rule
    destinations: Sequence[Destination]
    language: str = "en"
    engine: str | None = None
    topic_id: int | None = None


class ScheduleRequest(BaseModel):
    """A digest schedule as a request gives it (the ``/v1/schedules`` body): a source,
    when, in which language and engine, and where to."""

    source_ref: SourceRefStr
    topic_id: int | None = Field(None, ge=1, le=2**31 - 1, description="One forum topic.")
    cadence: Literal["daily", "weekly"]
    at: str = Field(pattern=r"^\d{1,2}:\d{2}$", description="HH:MM in the source's zone.")
    weekday: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] | None = None
    language: LanguageCode = "en"
    engine: Literal["auto", "extractive", "llm", "hybrid"] | None = None
    destinations: list[Destination] = Field(min_length=1, max_length=10)

    def spec(self) -> ScheduleSpec:
        """The schedule to add (the rule read from cadence, time and weekday)."""
        return ScheduleSpec(
            source_ref=self.source_ref,
            rule=Rule.parse(self.cadence, self.at, self.weekday),
            destinations=self.destinations,
            language=self.language,
            engine=self.engine,
            topic_id=self.topic_id,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Schedule:
    """A stored schedule with its rule and destinations read."""

    id: int
    source_id: int
    source_ref: str
    topic_id: int | None
    rule: Rule
    language: str
    engine: str | None
    destinations: tuple[Destination, ...]
    created_at: datetime
    covered_until: datetime | None

    @classmethod
    def of(cls, record: ScheduleRecord) -> Schedule:
        """The schedule a stored row holds."""
        minute = record.at_minute
        rule = Rule(
            cadence=record.cadence,
            at=datetime.min.replace(hour=minute // 60, minute=minute % 60).time(),
            weekday=record.weekday,
        )
        return cls(
            id=record.id,
            source_id=record.source_id,
            source_ref=record.source_ref,
            topic_id=record.topic_id,
            rule=rule,
            language=record.language,
            engine=record.engine,
            destinations=tuple(parse_destinations(record.destinations)),
            created_at=record.created_at,
            covered_until=record.covered_until,
        )
