"""A destination's adapter, by kind (the one place that knows them all).

The adapters are imported when first used: httpx and smtplib are not for a process that
only lists schedules.
"""

from __future__ import annotations

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import Adapter
from toolkit.delivery.model import Destination


def adapter_for(destination: Destination, settings: DeliverySettings) -> Adapter:
    """The adapter that delivers to ``destination`` with the settings' servers."""
    if destination.kind == "telegram":
        from toolkit.delivery.telegram import TelegramAdapter

        return TelegramAdapter(destination, settings)
    if destination.kind == "webhook":
        from toolkit.delivery.webhook import WebhookAdapter

        return WebhookAdapter(destination, settings)
    if destination.kind == "email":
        from toolkit.delivery.mail import EmailAdapter

        return EmailAdapter(destination, settings)
    from toolkit.delivery.feed import FeedAdapter

    return FeedAdapter()
