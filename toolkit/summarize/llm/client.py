"""The ``openai`` client against any OpenAI-compatible endpoint, mapped to our errors.

Structured output is asked for with a JSON schema (``response_format: json_schema``);
an endpoint that rejects that (a 400/422) is asked again in JSON mode, and one that
rejects JSON mode too gets no ``response_format`` at all: the answer is then parsed and
validated like any other. The mode that worked is remembered per client.

Retries (``llm_max_retries``, policy in ``retry.py``: backoff that honours
``Retry-After``) run here rather than inside the openai client, so that they honour the
caller's deadline (``toolkit.deadline``, the service's per-request timeout): each
request waits at most ``min(llm_timeout, deadline.remaining())`` seconds, no request or
retry starts once the deadline has passed (``DeadlineExceeded``), and a retry whose wait
would outlast the deadline is not waited for (the failure is raised as it is).

openai's exceptions are translated here, at the edge: a timeout is ``UpstreamTimeout``,
a 429 ``UpstreamRateLimited`` (with the endpoint's ``Retry-After``), anything else
``UpstreamError``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

import openai

from toolkit import deadline
from toolkit.config import Settings
from toolkit.errors import ConfigError, UpstreamError, UpstreamRateLimited, UpstreamTimeout
from toolkit.summarize.llm.retry import backoff, retry_after, should_retry

Mode = Literal["json_schema", "json_object", "plain"]
ChatMessage = dict[str, str]

_MODES: tuple[Mode, ...] = ("json_schema", "json_object", "plain")
DEFAULT_RETRY_AFTER = 30.0


def _passed() -> bool:
    left = deadline.remaining()
    return left is not None and left <= 0


@contextmanager
def map_openai_errors(model: str) -> Iterator[None]:
    """Translate openai's exceptions into the toolkit's error tree."""
    try:
        yield
    except openai.APITimeoutError as exc:
        raise UpstreamTimeout(f"the LLM endpoint did not answer in time (model {model})") from exc
    except openai.RateLimitError as exc:
        wait = retry_after(exc.response)
        raise UpstreamRateLimited(
            "the LLM endpoint is rate limiting requests",
            retry_after=DEFAULT_RETRY_AFTER if wait is None else wait,
        ) from exc
    except openai.APIConnectionError as exc:
        raise UpstreamError(f"cannot reach the LLM endpoint: {exc}") from exc
    except openai.APIStatusError as exc:
        raise UpstreamError(
            f"the LLM endpoint answered HTTP {exc.status_code}: {_short(exc.message)}"
        ) from exc
    except openai.OpenAIError as exc:
        raise UpstreamError(f"the LLM request failed: {_short(str(exc))}") from exc


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class LLMClient:
    """Chat completions that return JSON text, from one OpenAI-compatible endpoint."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        """Build the client; nothing is sent until the first request.

        Args:
            base_url: the endpoint, e.g. ``http://localhost:11434/v1``.
            model: the model name at the endpoint.
            api_key: the endpoint's key; local servers accept any value.
            timeout: seconds per request (fewer when the deadline is nearer).
            max_retries: retries of failed requests (timeouts, 429, 5xx), within the deadline.
        """
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        # Local servers (Ollama, llama.cpp) want no key, but the client insists on one.
        # Retries are ours (``_create``), so that they stop at the deadline.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )
        self._mode_index = 0
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMClient:
        """A client for the endpoint the settings name; ``ConfigError`` when none is set."""
        if not settings.llm_base_url:
            raise ConfigError("no LLM endpoint is configured (set MLENS_LLM_BASE_URL)")
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        return cls(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=key,
            timeout=settings.llm_timeout,
            max_retries=settings.llm_max_retries,
        )

    @property
    def mode(self) -> Mode:
        """The structured-output mode the next request starts with."""
        return _MODES[self._mode_index]

    def _response_format(self, mode: Mode, schema: dict[str, Any], name: str) -> Any:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        if mode == "json_object":
            return {"type": "json_object"}
        return openai.NOT_GIVEN

    def complete_json(
        self, messages: list[ChatMessage], *, schema: dict[str, Any], name: str = "summary"
    ) -> str:
        """Send a chat and return the assistant's text, which should be one JSON object.

        Args:
            messages: the chat (``{"role": ..., "content": ...}`` dicts).
            schema: the JSON schema of the answer.
            name: the schema's name in the request.

        Raises:
            UpstreamTimeout, UpstreamRateLimited, UpstreamError: as mapped above.
            DeadlineExceeded: the caller's deadline passed before an answer came.
        """
        index = self._mode_index
        with map_openai_errors(self.model):
            while True:
                try:
                    response = self._create(
                        model=self.model,
                        messages=messages,
                        temperature=0,
                        response_format=self._response_format(_MODES[index], schema, name),
                    )
                    break
                except (openai.BadRequestError, openai.UnprocessableEntityError):
                    # Taken as "this response_format is not supported": step down a mode.
                    if index + 1 >= len(_MODES):
                        raise
                    index += 1
        with self._lock:
            self._mode_index = max(self._mode_index, index)
        if not response.choices:
            raise UpstreamError("the LLM endpoint returned no choices")
        return response.choices[0].message.content or ""

    def _create(self, **request: Any) -> Any:
        """One chat completion, tried again on transient failures while the deadline allows.

        Raises:
            DeadlineExceeded: the deadline passed before or during a request.
            openai.OpenAIError: a failure not retried, or the last one.
        """
        attempt = 0
        while True:
            left = deadline.remaining()
            if left is not None and left <= 0:
                raise deadline.exceeded()
            timeout = self.timeout if left is None else min(self.timeout, left)
            try:
                return self._client.chat.completions.create(**request, timeout=timeout)
            except openai.OpenAIError as exc:
                if _passed():
                    raise deadline.exceeded() from exc
                if attempt >= self.max_retries or not should_retry(exc):
                    raise
                wait = backoff(exc, attempt)
                left = deadline.remaining()
                if left is not None and wait >= left:
                    raise  # the retry could not start before the deadline
                time.sleep(wait)
                attempt += 1
