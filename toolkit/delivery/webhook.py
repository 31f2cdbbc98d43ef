"""The webhook destination: the digest's JSON document POSTed to a URL, signed.

Headers: ``X-Mlens-Timestamp`` (Unix seconds), ``X-Mlens-Signature``
(``sha256=<hex HMAC-SHA256 of "<timestamp>." + body with the shared secret>``) and
``X-Mlens-Delivery`` (the same on every try of one run's delivery: a receiver drops a
repeat by it). A network error, 408, 429 or 5xx is tried again after a backoff
(``Retry-After`` honoured up to a bound); another 4xx is final. The secret is never
logged, nor is the URL's query (which may hold a key).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime

import httpx

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import DeliveryFailed, Post
from toolkit.delivery.model import WebhookDestination

TRIES = 3
_MAX_WAIT = 30.0
_AGAIN = {408, 425, 429}


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Mlens-Signature`` of ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(
    secret: str,
    timestamp: str,
    body: bytes,
    header: str,
    *,
    now: float | None = None,
    tolerance: float = 300.0,
) -> bool:
    """Whether a received webhook is ours: the signature matches (compared in constant
    time) and its timestamp is within ``tolerance`` seconds of ``now`` (a replay is not)."""
    try:
        sent = float(timestamp)
    except ValueError:
        return False
    fresh = abs((time.time() if now is None else now) - sent) <= tolerance
    return fresh and hmac.compare_digest(signature(secret, timestamp, body), header)


class WebhookAdapter:
    """Posts digests to one URL.

    Args:
        destination: the URL and the shared secret.
        settings: the timeout.
        sleep: waits between tries (tests pass their own).
        clock: the time a request is signed at.
    """

    def __init__(
        self,
        destination: WebhookDestination,
        settings: DeliverySettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.destination = destination
        self._timeout = settings.timeout_seconds
        self._sleep = sleep
        self._clock = clock

    def deliver(self, digest: Post) -> str:
        """POST the digest's document, trying again on a passing failure.

        Raises:
            DeliveryFailed: the last try failed (its status, or why it was not reached).
        """
        body = json.dumps(digest.document(), ensure_ascii=False).encode("utf-8")
        why, wait = "", 0.0
        with httpx.Client(timeout=self._timeout) as client:
            for attempt in range(TRIES):
                if attempt:
                    self._sleep(min(_MAX_WAIT, wait))
                stamp = str(int(self._clock().timestamp()))
                headers = {
                    "Content-Type": "application/json",
                    "User-Agent": "message-lens-delivery",
                    "X-Mlens-Timestamp": stamp,
                    "X-Mlens-Signature": signature(self._secret, stamp, body),
                    "X-Mlens-Delivery": digest.delivery_id,
                }
                wait = 0.5 * 2**attempt
                try:
                    answer = client.post(self.destination.url, content=body, headers=headers)
                except httpx.HTTPError as exc:
                    why = f"unreachable ({type(exc).__name__})"
                    continue
                if answer.is_success:
                    return f"HTTP {answer.status_code} (try {attempt + 1})"
                why = f"HTTP {answer.status_code}"
                if answer.status_code not in _AGAIN and answer.status_code < 500:
                    break
                wait = max(wait, _retry_after(answer))
        raise DeliveryFailed(f"the webhook {self.destination.label()[8:]} answered {why}")

    @property
    def _secret(self) -> str:
        return self.destination.secret.get_secret_value()


def _retry_after(answer: httpx.Response) -> float:
    try:
        return float(answer.headers.get("retry-after", "0"))
    except ValueError:
        return 0.0
