"""Which failed LLM requests are tried again, and after how long.

This is the openai client's own policy, kept here so that the request deadline
(``toolkit.deadline``) can cut it short: ``LLMClient`` runs the client with no retries
of its own. Timeouts, connection errors, 408, 409, 429 and 5xx are tried again (an
``x-should-retry`` header decides when the endpoint sends one); the wait is the
endpoint's ``Retry-After`` when it gives one of at most two minutes (a longer one is
not retried), else exponential backoff from 0.5 s, capped at 8 s, less up to 25 %.

Whatever an endpoint writes in ``Retry-After`` (``inf``, ``nan``, ``-5``, ``1e400``, a
date in the past or in the year 9999, junk), what is read is a finite number of seconds
from 0 to ``RETRY_AFTER_CAP`` (an hour), or ``None`` when it says nothing usable: the
wait travels on as our own ``Retry-After`` header, which must be a whole number.
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from typing import Any

import openai

RETRY_AFTER_LIMIT = 120.0
"""A longer wait is not waited for: the failure is raised, carrying the wait."""
RETRY_AFTER_CAP = 3600.0
"""The longest wait an endpoint may ask for; a longer (or infinite) one reads as this."""
INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
_RETRIED_STATUSES = frozenset({408, 409, 429})


def _seconds(value: float) -> float | None:
    """``value`` within ``[0, RETRY_AFTER_CAP]``; ``None`` for NaN."""
    if math.isnan(value):
        return None
    return min(max(0.0, value), RETRY_AFTER_CAP)


def retry_after(response: Any) -> float | None:
    """Seconds the endpoint asked to wait (``retry-after-ms`` or ``Retry-After``, in
    seconds or as an HTTP date), clamped to ``[0, RETRY_AFTER_CAP]``, or ``None`` when it
    did not say or said nonsense (``nan``, junk)."""
    headers = getattr(response, "headers", None) or {}
    try:
        if "retry-after-ms" in headers:
            return _seconds(float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return _seconds(float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return _seconds(when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError, OSError, IndexError):
        return None


def should_retry(exc: openai.OpenAIError) -> bool:
    """Whether the request that raised ``exc`` is worth sending again."""
    if isinstance(exc, openai.APIConnectionError):  # timeouts included
        return True
    if not isinstance(exc, openai.APIStatusError):
        return False
    wait = retry_after(exc.response)
    if wait is not None and wait > RETRY_AFTER_LIMIT:
        return False
    header = exc.response.headers.get("x-should-retry")
    if header in ("true", "false"):
        return header == "true"
    return exc.status_code in _RETRIED_STATUSES or exc.status_code >= 500


def backoff(exc: openai.OpenAIError, attempt: int) -> float:
    """Seconds to wait before retry number ``attempt + 1`` of the request that raised ``exc``.

    Args:
        exc: the failure.
        attempt: retries made so far (0 before the first).
    """
    if isinstance(exc, openai.APIStatusError):
        wait = retry_after(exc.response)
        if wait is not None and 0 < wait <= RETRY_AFTER_LIMIT:
            return wait
    return min(INITIAL_DELAY * 2.0 ** min(attempt, 60), MAX_DELAY) * (1 - 0.25 * random.random())
