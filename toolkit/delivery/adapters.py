"""A destination's adapter, by kind (the one place that knows them all)."""

from __future__ import annotations

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter
from toolkit.delivery.feed import FeedAdapter
from toolkit.delivery.mail import EmailAdapter
from toolkit.delivery.model import (
    Destination,
    EmailDestination,
    FeedDestination,
    TelegramDestination,
    WebhookDestination,
)
from toolkit.delivery.telegram import TelegramAdapter
from toolkit.delivery.webhook import WebhookAdapter


def adapter_for(destination: Destination, settings: DeliverySettings) -> Adapter:
    """The adapter that delivers to ``destination`` with the settings' servers."""
    if isinstance(destination, TelegramDestination):
        return TelegramAdapter(destination, settings)
    if isinstance(destination, WebhookDestination):
        return WebhookAdapter(destination, settings)
    if isinstance(destination, EmailDestination):
        return EmailAdapter(destination, settings)
    assert isinstance(destination, FeedDestination)
    return FeedAdapter()
