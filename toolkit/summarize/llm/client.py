"""The ``openai`` client against any OpenAI-compatible endpoint, mapped to our errors.

Structured output is asked for with a JSON schema (``response_format: json_schema``).
Real servers refuse what they do not take in many ways (llama.cpp's Python server answers
HTTP 500 "Input should be 'text' or 'json_object'"), so any 400/422, and any status whose
body names ``response_format`` or a schema, is taken as a refusal of the format, never
retried as such, and the request is sent again one step down: JSON mode with the schema
in llama.cpp's ``schema`` extension, plain JSON mode, then no ``response_format`` at all
(the answer is parsed and validated like any other). The step that worked is remembered
per endpoint (base URL and model), for every client of the process.

Every request carries ``max_tokens`` (a runaway model stops there) and runs under one
deadline, ``min(MLENS_LLM_TIMEOUT, deadline.remaining())`` seconds for the whole request:
connect, waiting and every read (``transport.DeadlineTransport``), so an endpoint that
trickles bytes is cut off at the deadline and its connection closed. The body read is
bounded too (``MLENS_LLM_MAX_ANSWER_BYTES``).

Retries (``MLENS_LLM_MAX_RETRIES``, policy in ``retry.py``: backoff that honours
``Retry-After``) run here rather than inside the openai client, so that they honour the
caller's deadline (``toolkit.deadline``, the service's per-request timeout, less the
time an extractive fallback needs: ``budget.fallback_room``) and the summary's prompt
budget (``budget.PromptBudget``: every attempt is counted, and one that would pass the
budget is not sent): no request or retry starts once the deadline has passed
(``DeadlineExceeded``), and a retry is made only when its wait and as long as the failed
attempt took (a hang that took the whole request timeout would take it again) still fit
before the deadline; else the failure is raised as it is, at once.

A prompt larger than the model's context is refused with a 400 too; its wording (OpenAI,
vLLM, llama.cpp) says so, and it is ``UpstreamContextExceeded``, never a refusal of the
format: the map-reduce splits the chunk and asks again.

openai's exceptions are translated here, at the edge: a timeout is ``UpstreamTimeout``,
a 429 ``UpstreamRateLimited`` (with the endpoint's ``Retry-After``, clamped), a body too
large or not a chat completion ``UpstreamInvalidOutput``, anything else
``UpstreamError``. Their messages are ours ("the LLM endpoint answered HTTP 500"): what
the endpoint said (its error body, a server path, the tail of a masked key) is logged
here (``toolkit.summarize.llm``, the configured key blanked), never carried to an API
client's ``detail``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Literal

import openai

from toolkit import deadline
from toolkit.config import LLMSettings
from toolkit.errors import (
    ConfigError,
    UpstreamContextExceeded,
    UpstreamError,
    UpstreamInvalidOutput,
    UpstreamRateLimited,
    UpstreamTimeout,
)
from toolkit.summarize.llm import budget
from toolkit.summarize.llm.retry import backoff, retry_after, should_retry
from toolkit.summarize.llm.transport import AnswerTooLarge, DeadlineTransport, request_deadline

Mode = Literal["json_schema", "json_object_schema", "json_object", "plain"]
ChatMessage = dict[str, str]

log = logging.getLogger("toolkit.summarize.llm")

_MODES: tuple[Mode, ...] = ("json_schema", "json_object_schema", "json_object", "plain")
MIN_ATTEMPT_SECONDS = 1.0
"""A retry is made only when at least this long (or as long as the failed attempt took)
is left for it before the deadline, after its wait."""
DEFAULT_RETRY_AFTER = 30.0
DEFAULT_MAX_TOKENS = 500
DEFAULT_MAX_ANSWER_BYTES = 256 * 1024
_REFUSAL_WORDS = ("response_format", "json_schema", "json_object", "schema")
_CONTEXT_WORDS = re.compile(
    r"context (window|length|size)|maximum context|too many tokens|prompt is too long", re.I
)

# The step each endpoint settled on, shared by every client of the process.
_learned: dict[tuple[str, str], int] = {}
_learned_lock = threading.Lock()


def _passed() -> bool:
    left = deadline.remaining()
    return left is not None and left <= 0


def exceeds_context(exc: openai.OpenAIError) -> bool:
    """Whether ``exc`` is the endpoint refusing a prompt larger than its context."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code >= 500:
        return False
    return bool(_CONTEXT_WORDS.search(f"{exc.message} {exc.body}"))


def refuses_format(exc: openai.OpenAIError) -> bool:
    """Whether ``exc`` is the endpoint refusing the request's ``response_format``."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code == 429:
        return False
    if exceeds_context(exc):
        return False
    if exc.status_code in (400, 422):
        return True
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in _REFUSAL_WORDS)


def _too_large(exc: BaseException) -> AnswerTooLarge | None:
    while exc is not None:
        if isinstance(exc, AnswerTooLarge):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


def _said(exc: BaseException) -> str:
    """What the endpoint (or the connection) said, for the log only."""
    if isinstance(exc, openai.APIStatusError):
        return _short(f"{exc.message} {exc.body!r}", 1000)
    return _short(str(exc), 1000)


_secrets: set[str] = set()
"""The configured keys, blanked in what is logged."""


def _log_failure(what: str, exc: BaseException) -> None:
    said = _said(exc)
    for secret in _secrets:
        said = said.replace(secret, "***")
    log.warning("LLM request failed (%s): %s: %s", what, type(exc).__name__, said)


_WHO = {
    401: " (it refused the API key: check MLENS_LLM_API_KEY)",
    403: " (it refused the API key: check MLENS_LLM_API_KEY)",
    404: " (check MLENS_LLM_BASE_URL and MLENS_LLM_MODEL)",
}


@contextmanager
def map_openai_errors(model: str) -> Iterator[None]:
    """Translate openai's exceptions into the toolkit's error tree, in our own words
    (what the endpoint said is logged, not carried on)."""
    try:
        yield
    except openai.APITimeoutError as exc:
        _log_failure("timeout", exc)
        raise UpstreamTimeout(f"the LLM endpoint did not answer in time (model {model})") from exc
    except openai.RateLimitError as exc:
        _log_failure("rate limited", exc)
        wait = retry_after(exc.response)
        raise UpstreamRateLimited(
            "the LLM endpoint is rate limiting requests",
            retry_after=DEFAULT_RETRY_AFTER if wait is None else wait,
        ) from exc
    except openai.APIConnectionError as exc:
        large = _too_large(exc)
        if large is not None:
            raise UpstreamInvalidOutput(f"the LLM's answer is too large: {large}") from exc
        _log_failure("connection", exc)
        raise UpstreamError("cannot reach the LLM endpoint") from exc
    except openai.APIResponseValidationError as exc:
        _log_failure("not a chat completion", exc)
        raise UpstreamInvalidOutput("the LLM endpoint's answer is not a chat completion") from exc
    except openai.APIStatusError as exc:
        _log_failure(f"HTTP {exc.status_code}", exc)
        if exceeds_context(exc):
            raise UpstreamContextExceeded("the prompt is larger than the LLM's context") from exc
        raise UpstreamError(
            f"the LLM endpoint answered HTTP {exc.status_code}{_WHO.get(exc.status_code, '')}"
        ) from exc
    except openai.OpenAIError as exc:
        _log_failure("other", exc)
        raise UpstreamError("the LLM request failed") from exc


@contextmanager
def _unusable_body() -> Iterator[None]:
    """A body that is too large or not JSON is an unusable answer, not a crash."""
    try:
        yield
    except AnswerTooLarge as exc:
        raise UpstreamInvalidOutput(f"the LLM's answer is too large: {exc}") from exc
    except (ValueError, RecursionError) as exc:  # openai parses the body as JSON
        _log_failure("unreadable body", exc)
        raise UpstreamInvalidOutput("the LLM endpoint's answer is not a chat completion") from exc


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def completion_text(response: Any) -> str:
    """The assistant's text of a chat completion.

    Raises:
        UpstreamInvalidOutput: the response is no chat completion (an HTML page with
            status 200, a JSON of another shape) or carries no text.
    """
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise UpstreamInvalidOutput(
            "the LLM endpoint's answer is not a chat completion (no choices)"
        ) from exc
    if not isinstance(content, str) or not content.strip():
        raise UpstreamInvalidOutput("the LLM's answer has no content")
    return content


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
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        letters_per_token: float | None = None,
    ) -> None:
        """Build the client; nothing is sent until the first request.

        Args:
            base_url: the endpoint, e.g. ``http://localhost:11434/v1``.
            model: the model name at the endpoint.
            api_key: the endpoint's key; local servers accept any value.
            timeout: seconds for a whole request (fewer when the deadline is nearer).
            max_retries: retries of failed requests (timeouts, 429, 5xx), within the deadline.
            max_tokens: the answer's token bound, sent with every request.
            max_answer_bytes: the largest response body read.
            letters_per_token: non-ASCII letters per token of the model's vocabulary, for
                the estimates of prompts and answers (``None``: by the model's family,
                ``budget.letters_per_token``).
        """
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.letters_per_token = budget.letters_per_token(model, letters_per_token)
        # Local servers (Ollama, llama.cpp) want no key, but the client insists on one.
        # Retries are ours (``_create``), so that they stop at the deadline.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(
                transport=DeadlineTransport(max_bytes=max_answer_bytes)
            ),
        )
        self._endpoint = (base_url.rstrip("/"), model)
        if api_key and len(api_key) >= 8:
            _secrets.add(api_key)

    @classmethod
    def from_settings(cls, llm: LLMSettings) -> LLMClient:
        """The client for the endpoint the LLM settings name, one per endpoint and settings
        so that connections are reused; ``ConfigError`` when none is set."""
        if not llm.base_url:
            raise ConfigError("no LLM endpoint is configured (set MLENS_LLM_BASE_URL)")
        key = llm.api_key.get_secret_value() if llm.api_key else None
        options = tuple((name, getattr(llm, name)) for name in _FROM_SETTINGS)
        return _shared_client(key, options)

    @property
    def mode(self) -> Mode:
        """The structured-output mode the next request starts with (learned per endpoint)."""
        return _MODES[_learned.get(self._endpoint, 0)]

    def _response_format(
        self, mode: Mode, schema: dict[str, Any], name: str, grammar_schema: dict[str, Any]
    ) -> Any:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        if mode == "json_object_schema":  # llama.cpp's extension: a grammar from the schema
            return {"type": "json_object", "schema": grammar_schema}
        if mode == "json_object":
            return {"type": "json_object"}
        return openai.NOT_GIVEN

    def complete_json(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str = "summary",
        grammar_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """Send a chat and return the assistant's text, which should be one JSON object.

        Args:
            messages: the chat (``{"role": ..., "content": ...}`` dicts).
            schema: the JSON schema of the answer.
            name: the schema's name in the request.
            grammar_schema: the schema for servers that make a grammar of it (llama.cpp's
                ``json_object`` + ``schema``), with bounds a strict json_schema may not
                take; ``schema`` when not given.
            max_tokens: this request's answer bound, at most the client's (which is used
                when not given): a partial summary needs less room than the final one.

        Raises:
            UpstreamTimeout, UpstreamRateLimited, UpstreamError, UpstreamInvalidOutput:
                as mapped above.
            DeadlineExceeded: the caller's deadline passed before an answer came.
        """
        index = _learned.get(self._endpoint, 0)
        with map_openai_errors(self.model), _unusable_body():
            while True:
                try:
                    response = self._create(
                        model=self.model,
                        messages=messages,
                        temperature=0,
                        max_tokens=min(max_tokens or self.max_tokens, self.max_tokens),
                        response_format=self._response_format(
                            _MODES[index], schema, name, grammar_schema or schema
                        ),
                    )
                    break
                except openai.APIStatusError as exc:
                    if _MODES[index] == "plain" or not refuses_format(exc):
                        raise
                    index += 1  # this response_format is refused: step down
        with _learned_lock:
            _learned[self._endpoint] = max(_learned.get(self._endpoint, 0), index)
        return completion_text(response)

    def _create(self, **request: Any) -> Any:
        """One chat completion, tried again on transient failures while the deadline and
        the summary's prompt budget allow.

        Raises:
            DeadlineExceeded: the deadline passed before or during a request.
            PromptBudgetSpent: the request would pass the summary's prompt budget.
            openai.OpenAIError: a failure not retried, or the last one.
        """
        attempt = 0
        formatted = request.get("response_format") is not openai.NOT_GIVEN
        spend = budget.current()
        cost = budget.chat_tokens(
            request.get("messages") or [], letters_per_token=self.letters_per_token
        )
        while True:
            left = deadline.remaining()
            if left is not None and left <= 0:
                raise deadline.exceeded()
            timeout = self.timeout if left is None else min(self.timeout, left)
            spend.charge(cost)
            started = time.monotonic()
            try:
                with request_deadline(timeout):
                    return self._client.chat.completions.create(**request, timeout=timeout)
            except openai.OpenAIError as exc:
                took = time.monotonic() - started
                if _passed():
                    raise deadline.exceeded() from exc
                if exceeds_context(exc) or (formatted and refuses_format(exc)):
                    spend.refund(cost)  # refused unread
                if formatted and refuses_format(exc):
                    raise  # the caller steps down; the same format would be refused again
                if _too_large(exc) is not None:
                    raise
                if attempt >= self.max_retries or not should_retry(exc):
                    raise
                if not spend.fits(cost):
                    raise  # a retry would pass the summary's prompt budget
                wait = backoff(exc, attempt)
                left = deadline.remaining()
                if left is not None and wait + max(MIN_ATTEMPT_SECONDS, took) > left:
                    raise  # a retry could not get the time this attempt took
                _log_failure(f"retry {attempt + 1} in {wait:.1f} s", exc)
                time.sleep(wait)
                attempt += 1


_FROM_SETTINGS = (
    "base_url",
    "model",
    "timeout",
    "max_retries",
    "max_tokens",
    "max_answer_bytes",
    "letters_per_token",
)
"""The client's arguments that are fields of the settings' ``llm`` section."""


@lru_cache(maxsize=8)
def _shared_client(api_key: str | None, options: tuple[tuple[str, Any], ...]) -> LLMClient:
    # The output mode learned is kept per endpoint by this module, whatever the client.
    return LLMClient(api_key=api_key, **dict(options))
