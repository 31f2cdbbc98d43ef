"""What one summary may spend upstream: prompt tokens, and the time its fallback needs.

**Prompt tokens.** A summary's requests together send at most ``MLENS_LLM_MAX_PROMPT_TOKENS``
prompt tokens (estimated as ``messages.estimate_tokens`` estimates them, high). The
map-reduce plans its first pass within the budget (a spread sample of the window where
all of it would not fit, ``mapreduce.MapReduce.sample``), and ``PromptBudget`` keeps the
count of what is actually sent, every attempt included: a retry (of a failed request,
of an invalid answer, of an answer with period wording or in another language) is sent
only when the budget still has room for it, and a request that would pass it is never
sent (``PromptBudgetSpent``). A request the endpoint refused unread (its
``response_format``, a prompt larger than its context) is given back.

**The fallback's time.** With ``MLENS_LLM_FALLBACK=extractive``, the LLM's requests run
under a deadline ``MLENS_LLM_FALLBACK_SECONDS`` (at most half the time left) shorter than the
caller's (``fallback_room``): an endpoint that hangs is given up on while the offline
digest still has time to be written, and that is an ``UpstreamTimeout`` the engine falls
back on, never the caller's ``DeadlineExceeded``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from toolkit import deadline
from toolkit.config import LLMSettings
from toolkit.errors import DeadlineExceeded, UpstreamError, UpstreamTimeout
from toolkit.summarize.llm.messages import estimate_tokens

FRAMING_TOKENS = 100
"""Tokens of a request's chat framing (roles, template tokens), beside its contents."""

VOCABULARIES: tuple[tuple[str, float], ...] = (
    ("smollm", 1.0),
    ("gpt-4o", 3.0),
    ("gpt-4.1", 3.0),
    ("gpt-5", 3.0),
    ("gemma", 3.0),
    ("llama-3", 2.5),
    ("llama3", 2.5),
    ("qwen", 2.5),
    ("mistral-nemo", 2.5),
    ("gpt-4", 2.0),
    ("gpt-3.5", 2.0),
)
"""Letters outside ASCII (Cyrillic …) per token, leaning low (the estimate stays high), by
a part of the model's name (the o-series by its start), the first that matches: a 49k
English vocabulary (SmolLM2) spends a token on each Cyrillic letter (measured: 48 tokens
for 52 estimated on a Russian sentence), the 100k–256k vocabularies of later families one
on 2–4. Other models: one a letter, as before (too high costs room; too low, a chunk
the endpoint refuses as larger than its context, which is then split in two)."""


def letters_per_token(model: str, configured: float | None = None) -> float:
    """The non-ASCII letters per token of ``model`` (``configured``:
    ``MLENS_LLM_LETTERS_PER_TOKEN``, when set, wins); 1.0 for a family not known."""
    if configured is not None:
        return configured
    name = model.casefold().rsplit("/", 1)[-1]
    if name.startswith(("o1", "o3", "o4")):  # OpenAI's reasoning models: o200k_base
        return 3.0
    return next((rate for part, rate in VOCABULARIES if part in name), 1.0)


class PromptBudgetSpent(UpstreamError):
    """A request of the summary would pass its prompt-token budget, so it was not sent."""

    title = "LLM prompt budget spent"


def chat_tokens(chat: Sequence[dict[str, str]], *, letters_per_token: float = 1.0) -> int:
    """The estimated prompt tokens of one request's chat (``letters_per_token``: the
    endpoint's, ``letters_per_token()``)."""
    rate = letters_per_token
    return sum(estimate_tokens(m.get("content") or "", letters_per_token=rate) for m in chat) + (
        FRAMING_TOKENS
    )


class PromptBudget:
    """The prompt tokens one summary may still send (thread-safe: chunk requests run in
    worker threads)."""

    def __init__(self, limit: int | None) -> None:
        """``limit``: the tokens the summary may send; ``None``: no bound."""
        self.limit = limit
        self.spent = 0
        self.requests = 0
        self._lock = threading.Lock()

    @property
    def left(self) -> int | None:
        """Tokens still to spend (``None``: no bound)."""
        return None if self.limit is None else max(0, self.limit - self.spent)

    def fits(self, tokens: int) -> bool:
        """Whether a request of ``tokens`` may still be sent."""
        with self._lock:
            return self.limit is None or self.spent + tokens <= self.limit

    def charge(self, tokens: int) -> None:
        """Count a request of ``tokens`` about to be sent.

        Raises:
            PromptBudgetSpent: it would pass the budget (and is not counted).
        """
        with self._lock:
            if self.limit is not None and self.spent + tokens > self.limit:
                raise PromptBudgetSpent(
                    f"the summary's LLM requests would pass its budget of {self.limit} "
                    "prompt tokens (MLENS_LLM_MAX_PROMPT_TOKENS)"
                )
            self.spent += tokens
            self.requests += 1

    def refund(self, tokens: int) -> None:
        """Give back a request the endpoint refused without reading it."""
        with self._lock:
            self.spent = max(0, self.spent - tokens)
            self.requests = max(0, self.requests - 1)


_current: ContextVar[PromptBudget | None] = ContextVar("mlens_llm_budget", default=None)


def current() -> PromptBudget:
    """The budget of the summary being written (an unbounded one outside ``spending``)."""
    return _current.get() or PromptBudget(None)


@contextmanager
def spending(limit: int | None) -> Iterator[PromptBudget]:
    """Run one summary's requests within ``limit`` prompt tokens (worker threads that
    copy the context share the same budget). A nested ``spending`` keeps the outer one."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    budget = PromptBudget(limit)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


@contextmanager
def fallback_room(llm: LLMSettings) -> Iterator[None]:
    """Run the LLM's requests so that the extractive fallback still fits the deadline.

    Without a fallback, or outside any deadline, the block runs as it is. With one, it
    runs under a deadline ``min(MLENS_LLM_FALLBACK_SECONDS, half the time left)`` earlier; when
    that one passes (the caller's has not), the endpoint did not answer in time:

    Raises:
        UpstreamTimeout: the shortened deadline passed.
    """
    left = deadline.remaining()
    if llm.fallback != "extractive" or left is None:
        yield
        return
    reserve = min(llm.fallback_seconds, left / 2)
    try:
        with deadline.within(max(0.0, left - reserve)):
            yield
    except DeadlineExceeded as exc:
        outer = deadline.remaining()
        if outer is not None and outer <= 0:
            raise
        raise UpstreamTimeout("the LLM endpoint did not answer in the time a summary has") from exc
