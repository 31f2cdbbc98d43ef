"""The Telegram destination: the digest posted to a chat through the Bot API
(``sendMessage``, HTML parse mode, one message per part of ``render.telegram_messages``).

The token travels in the URL path as the Bot API wants it, so no error here quotes a
URL: httpx's messages name it. A 429 is honoured: its ``retry_after`` is slept when it is
short, else the destination fails saying when to try again (the runner's next try).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import DeliveryFailed, Post
from toolkit.delivery.model import TelegramDestination
from toolkit.delivery.render import telegram_messages

_SHORT_WAIT = 30.0  # a longer flood wait goes back to the runner
_TRIES = 3


class TelegramAdapter:
    """Posts digests to one chat.

    Args:
        destination: the chat and, perhaps, its own bot token.
        settings: the Bot API's URL, the default token, the timeout.
        sleep: waits out a short flood wait (tests pass their own).
    """

    def __init__(
        self,
        destination: TelegramDestination,
        settings: DeliverySettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.destination = destination
        token = destination.bot_token or settings.telegram_bot_token
        self._token = token.get_secret_value() if token is not None else None
        self._base = settings.telegram_api_url.rstrip("/")
        self._timeout = settings.timeout_seconds
        self._sleep = sleep

    def deliver(self, digest: Post) -> str:
        """Post the digest's messages in order; how many went.

        Raises:
            DeliveryFailed: no token, the API unreachable, or a refusal (its description).
        """
        if not self._token:
            raise DeliveryFailed(
                "no bot token: give the destination one or set MLENS_TELEGRAM_BOT_TOKEN"
            )
        messages = telegram_messages(digest)
        with httpx.Client(timeout=self._timeout) as client:
            for text in messages:
                self._post(client, text)
        return f"{len(messages)} message(s) to {self.destination.chat_id}"

    def _post(self, client: httpx.Client, text: str) -> None:
        body = {
            "chat_id": self.destination.chat_id,
            "text": text,
            "parse_mode": "HTML",
            "link_preview_options": {"is_disabled": True},
        }
        for _ in range(_TRIES):
            try:
                answer = client.post(f"{self._base}/bot{self._token}/sendMessage", json=body)
            except httpx.HTTPError as exc:
                raise DeliveryFailed(f"the Bot API is unreachable ({type(exc).__name__})") from None
            if answer.status_code == 429:
                wait = _retry_after(answer)
                if wait > _SHORT_WAIT:
                    raise DeliveryFailed(f"the Bot API asks to wait {wait:.0f} s", retry_after=wait)
                self._sleep(wait)
                continue
            if answer.status_code == 200 and _ok(answer):
                return
            raise DeliveryFailed(f"the Bot API refused: HTTP {answer.status_code} {_said(answer)}")
        raise DeliveryFailed("the Bot API kept asking to wait")


def _json(answer: httpx.Response) -> dict[str, object]:
    try:
        found = answer.json()
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _ok(answer: httpx.Response) -> bool:
    return _json(answer).get("ok") is True


def _said(answer: httpx.Response) -> str:
    return str(_json(answer).get("description", ""))[:200]


def _retry_after(answer: httpx.Response) -> float:
    parameters = _json(answer).get("parameters")
    if isinstance(parameters, dict) and isinstance(parameters.get("retry_after"), int | float):
        return float(parameters["retry_after"])
    try:
        return float(answer.headers.get("retry-after", "1"))
    except ValueError:
        return 1.0
